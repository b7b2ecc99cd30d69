/**
 * One suite for every Sandbox adapter: what SandboxedShell and the servers rely on. A usable sandbox says so
 * (with its version) and wraps a command so that it runs in the asked folder of the workspace, can write there only
 * when asked, cannot read a protected file (`.env`) nor the user's home, and sees no network when not asked; an
 * unusable one says why and fails every wrap with a typed SandboxError. A request that cannot be honoured (a cwd
 * outside the workspace) is a typed SandboxError, never a defect.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { scratchFolders } from "../support/Scratch.js"
import { Cause, Effect, Exit } from "effect"
import { SandboxError, type SandboxShape, type WrapRequest } from "../../src/ports/Sandbox.js"

export interface Fixture {
  /** The adapter; `home` is the host home it must hide. */
  readonly make: (home: string) => Effect.Effect<SandboxShape>
  /** Whether this adapter can sandbox here; if not, it must say why and refuse every wrap. */
  readonly usable: boolean
  /** Why this suite cannot run here at all, or undefined. */
  readonly skip?: string | undefined
}

const folder = scratchFolders()

const setup = () => {
  const root = folder("sandbox-c")
  const home = folder("sandbox-home")
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=secret-value\n")
  fs.mkdirSync(path.join(root, "sub"))
  fs.writeFileSync(path.join(root, "sub", "plain.txt"), "plain\n")
  fs.writeFileSync(path.join(home, "private.txt"), "home-secret\n")
  return { root, home }
}

const request = (root: string, over: Partial<WrapRequest> = {}): WrapRequest => ({
  command: ["/bin/sh", "-c", "true"], workspace: root, cwd: root, writable: false, network: false,
  env: { PATH: "/usr/bin:/bin" }, ...over
})

/** Runs `script` wrapped by `sandbox`: its exit status and output. */
const run = (sandbox: SandboxShape, req: WrapRequest, script: string) =>
  Effect.scoped(Effect.map(sandbox.wrap({ ...req, command: ["/bin/sh", "-c", script] }), (w) => {
    const r = spawnSync(w.argv[0]!, w.argv.slice(1), { env: { ...w.env }, encoding: "utf8", timeout: 20_000 })
    return { status: r.status, out: r.stdout + r.stderr }
  }))

export const contract = (name: string, fixture: Fixture) =>
  describe.skipIf(fixture.skip !== undefined)(`Sandbox contract: ${name}${fixture.skip === undefined ? "" : ` (skipped: ${fixture.skip})`}`, () => {
    it.effect("the status says whether it can sandbox, and why not", () =>
      Effect.gen(function* () {
        const { home } = setup()
        const sandbox = yield* fixture.make(home)
        if (fixture.usable) {
          assert.strictEqual(sandbox.status._tag, "Available")
          if (sandbox.status._tag === "Available") assert.isAbove(sandbox.status.version.length, 0)
        } else {
          assert.strictEqual(sandbox.status._tag, "Unavailable")
          if (sandbox.status._tag === "Unavailable") assert.isAbove(sandbox.status.reason.length, 0)
        }
      }))

    it.effect("a request that cannot be honoured is a typed SandboxError, never a defect", () =>
      Effect.gen(function* () {
        const { home, root } = setup()
        const sandbox = yield* fixture.make(home)
        const outside = folder("sandbox-outside")
        const requests = fixture.usable ? [request(root, { cwd: outside })] : [request(root), request(root, { cwd: outside })]
        for (const req of requests) {
          const exit = yield* Effect.exit(Effect.scoped(sandbox.wrap(req)))
          assert.isTrue(Exit.isFailure(exit), `${req.cwd}: ${String(exit)}`)
          if (Exit.isFailure(exit)) {
            assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
            const error = Cause.failureOption(exit.cause)
            assert.isTrue(error._tag === "Some" && error.value instanceof SandboxError)
          }
        }
      }))

    it.effect.skipIf(!fixture.usable)("the command runs in the asked folder and writes there only when asked", () =>
      Effect.gen(function* () {
        const { home, root } = setup()
        const sandbox = yield* fixture.make(home)
        const here = yield* run(sandbox, request(root, { cwd: path.join(root, "sub") }), "pwd; cat plain.txt")
        assert.deepStrictEqual([here.status, here.out.trim().split("\n")], [0, [path.join(root, "sub"), "plain"]])
        const ro = yield* run(sandbox, request(root), "echo x > made.txt")
        assert.notStrictEqual(ro.status, 0)
        assert.isFalse(fs.existsSync(path.join(root, "made.txt")))
        const rw = yield* run(sandbox, request(root, { writable: true }), "echo x > made.txt")
        assert.strictEqual(rw.status, 0, rw.out)
        assert.strictEqual(fs.readFileSync(path.join(root, "made.txt"), "utf8"), "x\n")
      }))

    it.effect.skipIf(!fixture.usable)("a protected file and the host home are unreadable; no network when not asked", () =>
      Effect.gen(function* () {
        const { home, root } = setup()
        const sandbox = yield* fixture.make(home)
        const r = yield* run(sandbox, request(root, { writable: true }), `cat .env; cat ${home}/private.txt`)
        assert.notInclude(r.out, "secret-value")
        assert.notInclude(r.out, "home-secret")
        const net = yield* run(sandbox, request(root), "cat /proc/net/dev")
        assert.strictEqual(net.status, 0, net.out)
        const devices = net.out.split("\n").filter((l) => /^\s*[\w.-]+:/.test(l)).map((l) => l.split(":")[0]!.trim())
        assert.include(devices, "lo")
        assert.deepStrictEqual(devices.filter((d) => d !== "lo"), [])
        assert.strictEqual(fs.readFileSync(path.join(root, ".env"), "utf8"), "TOKEN=secret-value\n")
      }))
  })
