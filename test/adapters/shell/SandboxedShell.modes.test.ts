/** Modes without a sandbox: `bwrap` refuses to run, `auto` runs unsandboxed (and says so through the status). */
import * as fs from "node:fs"
import * as os from "node:os"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SandboxedShell from "../../../src/adapters/shell/SandboxedShell.js"
import * as NodeAdapters from "../../../src/app/NodeLayers.js"
import { Sandbox, SandboxError } from "../../../src/ports/Sandbox.js"
import { Session } from "../../../src/ports/Session.js"
import { Shell } from "../../../src/ports/Shell.js"

const root = fs.realpathSync(os.tmpdir())
const none = Layer.succeed(
  Sandbox,
  Sandbox.of({ status: { _tag: "Unavailable", reason: "no user namespaces (test)" }, wrap: () => Effect.fail(new SandboxError({ reason: "unavailable" })) })
)
const session = Layer.succeed(Session, Session.of({ id: "t", turn: 1, root, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 4096 }))
const shell = (mode: "auto" | "bwrap") => SandboxedShell.layer({ mode, unrestricted: false }).pipe(Layer.provide(Layer.merge(none, session)))
const run = Effect.flatMap(Shell, (sh) => sh.run({ command: "echo ran", cwd: root, env: {}, timeoutMs: 5000, maxOutputBytes: 4096 }))

describe("SandboxedShell without a usable sandbox", () => {
  it.live("mode bwrap refuses to run anything", () =>
    Effect.gen(function* () {
      const r = yield* Effect.flip(run)
      assert.include(r.reason, "sandbox required (sandbox: bwrap) but unavailable: no user namespaces (test)")
    }).pipe(Effect.provide(shell("bwrap")))
  )

  it.live("mode auto runs unsandboxed", () =>
    Effect.gen(function* () {
      const r = yield* run
      assert.strictEqual(r.stdout, "ran\n")
    }).pipe(Effect.provide(shell("auto")))
  )

  it("doctor / mcp serve say so plainly", () => {
    const status = { _tag: "Unavailable" as const, reason: "bwrap (bubblewrap) is not installed" }
    assert.match(NodeAdapters.sandboxLine("auto", status), /^sandbox: NONE: bash runs unsandboxed/)
    assert.match(NodeAdapters.sandboxLine("bwrap", status), /^sandbox: REQUIRED but unavailable .* bash calls will be refused$/)
    const ok = { _tag: "Available" as const, kind: "bwrap" as const, version: "bubblewrap 0.8.0", limits: { prlimit: true, pidsCgroup: false, processLimit: true } }
    assert.match(NodeAdapters.sandboxLine("auto", ok), /^sandbox: bash runs inside bubblewrap 0.8.0 .* resource limits on$/)
  })
})
