/**
 * One suite for every Shell adapter: exit codes and both streams, argv without a shell, stdin, the output cap
 * with its marker, and the deadline. `script` is what an in-memory shell must be scripted with to answer it:
 * the real adapters run the same commands for real.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Scripted } from "../../src/adapters/shell/MemoryShell.js"
import type { ProcessSpec, ShellShape } from "../../src/ports/Shell.js"

export interface Fixture {
  /** A shell and a fresh working folder it may run in. */
  readonly make: Effect.Effect<{ readonly shell: ShellShape; readonly cwd: string }>
}

const both = "printf hello; printf oops >&2; exit 3"
const argv = ["printf", "%s|", "a b", "$HOME", "; rm -rf x"]
const big = "head -c 5000 /dev/zero | tr '\\0' x"
const slow = "sleep 30"

export const script: ReadonlyArray<Scripted> = [
  { command: both, stdout: "hello", stderr: "oops", exitCode: 3 },
  { command: argv, stdout: "a b|$HOME|; rm -rf x|" },
  { command: "cat", answer: (spec) => ({ stdout: spec.stdin ?? "" }) },
  { command: big, stdout: "x".repeat(5000) },
  { command: slow, durationMs: 30_000 }
]

const spec = (cwd: string, command: ProcessSpec["command"], more: Partial<ProcessSpec> = {}): ProcessSpec => ({
  command,
  cwd,
  env: {},
  timeoutMs: 10_000,
  maxOutputBytes: 1 << 20,
  ...more
})

export const contract = (name: string, fixture: Fixture) =>
  describe(`Shell contract: ${name}`, () => {
    it.live("reports the exit code and both streams", () =>
      Effect.gen(function* () {
        const { cwd, shell } = yield* fixture.make
        const r = yield* shell.run(spec(cwd, both))
        assert.deepStrictEqual([r.exitCode, r.signal, r.stdout, r.stderr, r.truncated, r.timedOut], [3, null, "hello", "oops", false, false])
      }))

    it.live("an argv runs without a shell: nothing in it is expanded or split", () =>
      Effect.gen(function* () {
        const { cwd, shell } = yield* fixture.make
        const r = yield* shell.run(spec(cwd, argv))
        assert.strictEqual(r.exitCode, 0)
        assert.strictEqual(r.stdout, "a b|$HOME|; rm -rf x|")
      }))

    it.live("stdin reaches the process", () =>
      Effect.gen(function* () {
        const { cwd, shell } = yield* fixture.make
        assert.strictEqual((yield* shell.run(spec(cwd, "cat", { stdin: "piped\nin" }))).stdout, "piped\nin")
      }))

    it.live("output beyond maxOutputBytes is cut, marked and reported", () =>
      Effect.gen(function* () {
        const { cwd, shell } = yield* fixture.make
        const r = yield* shell.run(spec(cwd, big, { maxOutputBytes: 100 }))
        assert.isTrue(r.truncated)
        assert.strictEqual(r.stdout, `${"x".repeat(100)}\n[truncated: 4900 more bytes]`)
      }))

    it.live("a run past its deadline is killed and says so (answers within 10 s)", () =>
      Effect.gen(function* () {
        const { cwd, shell } = yield* fixture.make
        const r = yield* shell.run(spec(cwd, slow, { timeoutMs: 300 }))
        assert.isTrue(r.timedOut)
        assert.strictEqual(r.exitCode, null)
        assert.strictEqual(r.signal, "SIGKILL")
      }), 10_000)
  })
