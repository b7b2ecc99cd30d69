/**
 * The ordering property, as a function: run generated calls through `compose(list with a probe after each stage,
 * Executor)` over recording layers of every port, and return the first call that escapes, or undefined.
 * (a) before the probe after Permission only allowlist reads are logged; before the probe after Jail only those,
 *     path resolution (lstat, readlink, readDir) and the workspace scan's answers (ProtectedAliases);
 * (b) a call Permission alone denies is denied by "permission" with no effect; one Jail denies (after Permission
 *     allowed it) is denied by "jail" with only resolution reads;
 * (c) after a denial nothing acted: no write, spawn, journal entry or network check is logged.
 * The oracle for (b) runs the exported Permission and Jail entries alone, so it does not depend on the list's order.
 */
import { Cause, Effect, Exit, FastCheck as fc, Layer, Option, Ref } from "effect"
import * as TreeSitterBashParser from "../../src/adapters/treesitter/TreeSitterBashParser.js"
import { ToolDenied } from "../../src/domain/core/Errors.js"
import type { AccessPolicy, PermissionMode, WorkMode } from "../../src/domain/core/Modes.js"
import * as Chain from "../../src/kernel/Chain.js"
import * as Executor from "../../src/kernel/Executor.js"
import * as Runner from "../../src/kernel/Runner.js"
import { BashParser } from "../../src/ports/BashParser.js"
import { ToolExecutor } from "../../src/ports/ToolExecutor.js"
import { type Log, recordingServices } from "./Recording.js"

const paths = ["a.txt", "src/b.ts", "new/f.txt", "../x", "/etc/passwd", ".env", ".git/config", "link-out/secret.txt", "link-in/b.ts", "dangling", "PLAN.md", "src", "link-out"] as const
const path = fc.constantFrom(...paths)
const text = fc.string({ maxLength: 8 })

export const call = fc.oneof(
  fc.record({ tool: fc.constant("read_file"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("write_file"), args: fc.record({ path, content: text }) }),
  fc.record({ tool: fc.constant("edit_file"), args: fc.record({ path, old_string: fc.constantFrom("alpha", "", "zzz"), new_string: text }) }),
  fc.record({ tool: fc.constant("list_dir"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("grep"), args: fc.record({ pattern: fc.constantFrom("a", "("), path }) }),
  fc.record({ tool: fc.constant("move_file"), args: fc.record({ from: path, to: path }) }),
  fc.record({ tool: fc.constant("delete_file"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("bash"), args: fc.record({ command: fc.constantFrom("ls", "cat .env", "rm -rf /", "echo hi > a.txt"), cwd: path }) }),
  fc.record({ tool: fc.constant("web_fetch"), args: fc.record({ url: fc.constantFrom("https://example.com/", "http://127.0.0.1/") }) }),
  fc.record({ tool: fc.constant("sql_query"), args: fc.record({ sql: fc.constantFrom("SELECT 1", "DROP TABLE t"), connection: fc.constantFrom("a.txt", "../x") }) })
)

export const modes = fc.record({
  workMode: fc.constantFrom<WorkMode>("DISCUSS", "PLAN", "BUILD", "EXECUTE"),
  permissionMode: fc.constantFrom<PermissionMode>("AUTO", "ASK"),
  policy: fc.constantFrom<AccessPolicy | undefined>(undefined, "readonly", "plan", "allowlist", "allow-all", "unrestricted")
})

export interface Case {
  readonly request: { readonly tool: string; readonly args: unknown }
  readonly modes: { readonly workMode: WorkMode; readonly permissionMode: PermissionMode; readonly policy: AccessPolicy | undefined }
}

export const cases = (numRuns: number, seed: number): ReadonlyArray<Case> =>
  fc.sample(fc.record({ request: call, modes }), { numRuns, seed })

/** A shipped stage, or a probe. */
export type Entry = (typeof Chain.stages)[number] | Chain.Stage<never, ToolExecutor>

const marker = "passed:"
const probe = (log: Log, name: string): Chain.Stage<never, ToolExecutor> => ({
  name: `probe:${name}`,
  layer: Layer.effect(
    ToolExecutor,
    Effect.map(ToolExecutor, (next) => ToolExecutor.of({ run: (inv) => Effect.zipRight(Ref.update(log, (l) => [...l, `${marker}${name}`]), next.run(inv)) }))
  )
})

/** The list with a probe after every stage. */
export const probed = (log: Log, list: ReadonlyArray<Entry>): ReadonlyArray<Entry> => list.flatMap((s): ReadonlyArray<Entry> => [s, probe(log, s.name)])

const permissionReads: ReadonlySet<string> = new Set(["Allowlist.entries"])
const resolutionReads: ReadonlySet<string> = new Set([
  "Allowlist.entries",
  "FileSystem.lstat",
  "FileSystem.readlink",
  "FileSystem.readDir",
  // The Jail's questions about protected content under other names (the workspace scan).
  "ProtectedAliases.of",
  "ProtectedAliases.known",
  "ProtectedAliases.treeControls"
])
const acting = /^(Shell\.|Journal\.begin|NetGuard\.|Approver\.|FileSystem\.(writeFile|makeDirectory|remove|rename|chmod))/

const until = (log: ReadonlyArray<string>, name: string) => {
  const at = log.indexOf(`${marker}${name}`)
  return (at < 0 ? log : log.slice(0, at)).filter((e) => !e.startsWith(marker))
}

const denialOf = <A, E>(exit: Exit.Exit<A, E>): Option.Option<{ readonly stage: string; readonly rule: string }> =>
  Exit.isFailure(exit)
    ? Option.flatMap(Cause.failureOption(exit.cause), (e) =>
        e instanceof ToolDenied ? Option.some({ stage: e.stage, rule: e.rule }) : Option.none()
      )
    : Option.none()

const runWith = (list: ReadonlyArray<Entry>, terminal: Layer.Layer<ToolExecutor, never, never> | undefined, c: Case, guard: Layer.Layer<BashParser>) =>
  Effect.gen(function* () {
    const log: Log = yield* Ref.make<ReadonlyArray<string>>([])
    const services = recordingServices(log, { workspace: "/ws", ...c.modes }, guard)
    const layer = Chain.compose(probed(log, list), terminal ?? Executor.layer())
    const exit = yield* Runner.invoke(c.request).pipe(Effect.provide(Layer.provide(layer, services)), Effect.exit)
    return { exit, log: yield* Ref.get(log) }
  })

const passThrough = Layer.succeed(ToolExecutor, ToolExecutor.of({ run: () => Effect.succeed({ text: "gates passed", truncated: false }) }))

type Denial = Option.Option<{ readonly stage: string; readonly rule: string }>

/** A fixed sample with the oracle's verdict (Permission and Jail alone) and one real bash guard, reused by every order. */
export interface Prepared {
  readonly guard: Layer.Layer<BashParser>
  readonly cases: ReadonlyArray<{ readonly case: Case; readonly oracle: Denial }>
}

export const prepare = (sample: ReadonlyArray<Case>) =>
  Effect.gen(function* () {
    const guard = Layer.succeed(BashParser, yield* TreeSitterBashParser.makeParser)
    const prepared = yield* Effect.forEach(sample, (c) =>
      Effect.map(runWith([Chain.Permission, Chain.Jail], passThrough, c, guard), ({ exit }) => ({ case: c, oracle: denialOf(exit) }))
    )
    return { guard, cases: prepared } satisfies Prepared
  })

/** The first case that escapes under `list` (with why), or undefined. */
export const findEscape = (list: ReadonlyArray<Entry>, prepared: Prepared) =>
  Effect.gen(function* () {
    for (const c of prepared.cases) {
      const why = yield* check(list, c.case, c.oracle, prepared.guard)
      if (why !== undefined) return { case: c.case, why }
    }
    return undefined
  })

const check = (list: ReadonlyArray<Entry>, c: Case, oracle: Denial, guard: Layer.Layer<BashParser>) =>
  Effect.gen(function* () {
    const { exit, log } = yield* runWith(list, undefined, c, guard)
    const beforePermission = until(log, "permission").filter((e) => !permissionReads.has(e))
    if (beforePermission.length > 0) return `(a) before Permission passed: ${beforePermission.join(", ")}`
    const beforeJail = until(log, "jail").filter((e) => !resolutionReads.has(e))
    if (beforeJail.length > 0) return `(a) before Jail passed: ${beforeJail.join(", ")}`
    const denial = denialOf(exit)
    const effects = log.filter((e) => !e.startsWith(marker))
    if (Option.isSome(oracle)) {
      const want = oracle.value
      if (Option.isNone(denial) || denial.value.stage !== want.stage || denial.value.rule !== want.rule) {
        return `(b) ${want.stage} denies (${want.rule}) but the chain gave ${Option.isNone(denial) ? Exit.isSuccess(exit) ? "success" : "another failure" : `${denial.value.stage}/${denial.value.rule}`}`
      }
      const allowed = want.stage === "permission" ? permissionReads : resolutionReads
      const extra = effects.filter((e) => !allowed.has(e))
      if (extra.length > 0) return `(b) denied by ${want.stage} after ${extra.join(", ")}`
    }
    if (Option.isSome(denial) && denial.value.rule !== "approval.declined") {
      const acted = effects.filter((e) => acting.test(e) && !(denial.value.stage === "guard" && e.startsWith("NetGuard.")))
      if (acted.length > 0) return `(c) denied by ${denial.value.stage} after ${acted.join(", ")}`
    }
    return undefined
  })
