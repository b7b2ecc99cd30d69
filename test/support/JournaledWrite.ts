/**
 * What the chain's journal stage does around a write_file, written plainly for the tests, the crash child and
 * the bench: snapshot, intent (pending, with the intended content), effect, terminal record. `at` is called at
 * each phase boundary so a test can crash the process there.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect } from "effect"
import { Journal, type Snapshot } from "../../src/ports/Journal.js"

export type Phase = "before-intent" | "after-intent" | "after-effect" | "after-terminal"

export const readSnapshot = (root: string, path: string): Snapshot => {
  const full = NodePath.join(root, path)
  const stat = NodeFs.lstatSync(full, { throwIfNoEntry: false })
  return stat === undefined
    ? { path, content: null, mode: null }
    : { path, content: new Uint8Array(NodeFs.readFileSync(full)), mode: stat.mode & 0o7777 }
}

/** tmp + rename, like the real adapter: a reader never sees half a file. */
export const writeAtomic = (full: string, content: Uint8Array, mode: number): void => {
  NodeFs.mkdirSync(NodePath.dirname(full), { recursive: true })
  const tmp = `${full}.${process.pid}.tmp`
  NodeFs.writeFileSync(tmp, content, { mode })
  NodeFs.chmodSync(tmp, mode)
  NodeFs.renameSync(tmp, full)
}

export const journaledWrite = (options: {
  readonly root: string
  readonly session: string
  readonly turn: number
  readonly path: string
  readonly content: Uint8Array
  readonly mode?: number
  readonly at?: (phase: Phase) => Effect.Effect<void>
}) =>
  Effect.gen(function* () {
    const journal = yield* Journal
    const at = options.at ?? (() => Effect.void)
    const before = readSnapshot(options.root, options.path)
    const mode = options.mode ?? before.mode ?? 0o644
    yield* at("before-intent")
    const record = yield* journal.begin(
      {
        session: options.session,
        turn: options.turn,
        tool: "write_file",
        capability: "write",
        paths: [options.path],
        canonicalArgs: JSON.stringify({ path: options.path, content: Buffer.from(options.content).toString("base64") }),
        remote: false
      },
      [before],
      [{ path: options.path, content: options.content, mode }]
    )
    yield* at("after-intent")
    writeAtomic(NodePath.join(options.root, options.path), options.content, mode)
    yield* at("after-effect")
    yield* journal.complete(record.id, "committed")
    yield* at("after-terminal")
    return record
  })
