import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, FastCheck as fc, Ref } from "effect"
import type { AccessPolicy, PermissionMode, WorkMode } from "../../src/domain/core/Modes.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { type Event, memoryAdapters, recordingChain } from "../support/Fakes.js"

const paths = [
  "a.txt", "src/b.ts", "src/new.ts", "new/dir/file.txt", "../x", "/etc/passwd", "/outside/secret.txt", ".env", ".ENV",
  ".env.example", ".env.local", ".git/config", ".git/hooks/pre-commit", ".minicode/state.db", "link-out/secret.txt",
  "link-out", "link-in/b.ts", "dangling", "PLAN.md", "plans/next.md", "secrets.yaml", "keys/id_rsa", "a\u0000b", "",
  "/proc/self/root/etc/passwd", "/ws/a.txt", "src/../a.txt", "src/../../x", "/ws-evil/a.txt"
] as const

const path = fc.constantFrom(...paths)
const text = fc.string({ maxLength: 20 })

const call = fc.oneof(
  fc.record({ tool: fc.constant("read_file"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("write_file"), args: fc.record({ path, content: text }) }),
  fc.record({ tool: fc.constant("edit_file"), args: fc.record({ path, old_string: fc.constantFrom("alpha", "", "zzz"), new_string: text }) }),
  fc.record({ tool: fc.constant("list_dir"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("grep"), args: fc.record({ pattern: fc.constantFrom("a", "(", "TOKEN"), path }) }),
  fc.record({ tool: fc.constant("glob"), args: fc.record({ pattern: fc.constantFrom("**/*", "*.ts"), path }) }),
  fc.record({ tool: fc.constant("move_file"), args: fc.record({ from: path, to: path }) }),
  fc.record({ tool: fc.constant("delete_file"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("bash"), args: fc.record({ command: fc.constantFrom("npm test", "ls"), cwd: path }) }),
  fc.record({ tool: fc.constant("git_commit"), args: fc.record({ message: fc.constant("m"), paths: fc.array(path, { minLength: 1, maxLength: 2 }) }) })
)

const modes = fc.record({
  workMode: fc.constantFrom<WorkMode>("DISCUSS", "PLAN", "BUILD", "EXECUTE"),
  permissionMode: fc.constantFrom<PermissionMode>("AUTO", "ASK"),
  policy: fc.constantFrom<AccessPolicy | undefined>(undefined, "readonly", "plan", "allowlist", "allow-all", "unrestricted")
})

const sideEffects = (log: ReadonlyArray<Event>) => log.filter((e) => e !== "gates-passed")

const run = (request: { tool: string; args: unknown }, options: Kernel.SessionOptions) =>
  Effect.gen(function* () {
    const log = yield* Ref.make<ReadonlyArray<Event>>([])
    const exit = yield* Runner.invoke(request).pipe(Effect.provide(recordingChain(log, options)), Effect.exit)
    return { exit, log: yield* Ref.get(log) }
  })

describe("the chain", () => {
  it.effect.prop(
    "a call denied by permission or jail leaves the effect log empty, and no effect precedes those gates",
    { request: call, modes },
    ({ request, modes }) =>
      Effect.gen(function* () {
        const { exit, log } = yield* run(request, { workspace: "/ws", ...modes })
        const gate = log.indexOf("gates-passed")
        if (Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "ToolDenied") {
          const stage = exit.cause.error.stage
          if (stage === "permission" && exit.cause.error.rule !== "approval.declined") assert.deepStrictEqual(log, [])
          if (stage === "jail") assert.deepStrictEqual(log, [])
        }
        const effects = sideEffects(log)
        if (effects.length > 0) {
          assert.isAtLeast(gate, 0, `effects without passing the gates: ${effects.join(", ")}`)
          assert.strictEqual(log.slice(0, gate).length, 0, `effects before the gates: ${log.slice(0, gate).join(", ")}`)
        }
      }),
    // CPU-bound: 400 runs take ~20 s on a quiet 2-core machine, several times that beside a loaded CI's other files.
    { timeout: 180_000, fastCheck: { numRuns: 400 } }
  )

  it.effect.prop(
    "policy explain agrees with the runtime chain on every denial",
    { request: call, modes },
    ({ request, modes }) =>
      Effect.gen(function* () {
        const options = { workspace: "/ws", ...modes }
        const decision = yield* Runner.explain(request, Kernel.gatesLayer(options, memoryAdapters()))
        const { exit } = yield* run(request, options)
        if (decision.decision === "deny") {
          assert.isTrue(Exit.isFailure(exit), `explain denied (${decision.rule}) but the call ran`)
          if (Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "ToolDenied") {
            assert.strictEqual(exit.cause.error.rule, decision.rule)
          }
        } else if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
          assert.notStrictEqual(exit.cause.error._tag, "ToolDenied", `explain said ${decision.decision} but the chain denied: ${exit.cause.error.message}`)
        }
      }),
    { timeout: 180_000, fastCheck: { numRuns: 300 } }
  )

  it.effect("asks the operator only after every gate passed, and journals around the write", () =>
    Effect.gen(function* () {
      const { exit, log } = yield* run(
        { tool: "write_file", args: { path: "src/c.ts", content: "x" } },
        { workspace: "/ws", workMode: "BUILD", permissionMode: "ASK" }
      )
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(log.slice(0, 3), ["gates-passed", "ask", "journal:begin"])
      assert.include(log, "fs:write /ws/src/c.ts")
      assert.strictEqual(log[log.length - 1], "journal:complete")
    })
  )

  it.effect("a secret is denied even under allow-all and unrestricted", () =>
    Effect.gen(function* () {
      for (const policy of ["allow-all", "unrestricted"] as const) {
        const { exit, log } = yield* run({ tool: "read_file", args: { path: ".env" } }, { workspace: "/ws", workMode: "BUILD", policy })
        assert.isTrue(Exit.isFailure(exit))
        assert.deepStrictEqual(log, [])
      }
    })
  )

  it.effect("unrestricted opens paths outside the workspace but never .minicode/", () =>
    Effect.gen(function* () {
      const outside = yield* run({ tool: "read_file", args: { path: "/outside/secret.txt" } }, { workspace: "/ws", policy: "unrestricted" })
      assert.isTrue(Exit.isSuccess(outside.exit))
      const state = yield* run({ tool: "read_file", args: { path: ".minicode/state.db" } }, { workspace: "/ws", policy: "unrestricted" })
      assert.isTrue(Exit.isFailure(state.exit))
      assert.deepStrictEqual(state.log, [])
    })
  )

  it.effect("bad arguments name the field and nothing runs", () =>
    Effect.gen(function* () {
      const { exit, log } = yield* run({ tool: "read_file", args: { file_path: "a.txt" } }, { workspace: "/ws" })
      assert.deepStrictEqual(log, [])
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      assert.strictEqual(error?._tag, "InvalidArguments")
      assert.include(error?.message ?? "", "path")
      assert.include(error?.message ?? "", "file_path")
      const unknown = yield* Runner.invoke({ tool: "rm_rf", args: {} }).pipe(
        Effect.provide(recordingChain(yield* Ref.make<ReadonlyArray<Event>>([]), { workspace: "/ws" })),
        Effect.either
      )
      assert.isTrue(Either.isLeft(unknown) && unknown.left._tag === "UnknownTool")
    })
  )
})
