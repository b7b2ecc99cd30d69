/** The Shell contract inside the real bubblewrap sandbox; skipped with the reason where bwrap cannot run. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import * as SandboxedShell from "../../../src/adapters/shell/SandboxedShell.js"
import { Session } from "../../../src/ports/Session.js"
import { Shell } from "../../../src/ports/Shell.js"
import { mustRun, title, unavailable } from "../../support/Sandbox.js"
import { contract } from "../../contracts/Shell.contract.js"

const fixture = Effect.gen(function* () {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sbshell-")))
  const ws = path.join(base, "ws")
  const home = path.join(base, "home")
  fs.mkdirSync(ws)
  fs.mkdirSync(home)
  const layer = SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits: { processes: 64, cpuSeconds: 60 } }).pipe(
    Layer.provide(BwrapSandbox.layer({ hostHome: home })),
    Layer.provide(Layer.succeed(Session, Session.of({ id: "t", turn: 1, root: ws, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 20 })))
  )
  return { shell: yield* Effect.provide(Shell, layer), cwd: ws }
})

if (unavailable !== undefined && mustRun) {
  describe("sandboxed shell contract", () => {
    it("bwrap must be usable in CI (CI=true)", () => assert.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("sandboxed shell (bwrap)"), () => {
  contract("sandboxed (bwrap)", { make: fixture })
})
