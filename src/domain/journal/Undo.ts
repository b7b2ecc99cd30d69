/**
 * Undo/redo planning, pure: from a turn's recorded path changes and the files' current states to one step
 * per path. A path whose current state is not one the turn could have left (someone else changed it) is
 * refused with the reason, never overwritten.
 */
import { Schema } from "effect"
import type { RecordState } from "./Recovery.js"

/** A file's identity for undo: the sha256 of its content (null: absent) and its permission bits. */
export interface FileState {
  readonly hash: string | null
  readonly mode: number | null
  /** Its size in bytes and lines, when known (for words only: never compared). */
  readonly size?: number | undefined
  readonly lines?: number | undefined
}

/** Bytes and lines of a file's content (a last line without a newline counts). */
export const measure = (content: Uint8Array): { readonly size: number; readonly lines: number } => {
  let lines = 0
  for (const byte of content) if (byte === 10) lines++
  if (content.length > 0 && content[content.length - 1] !== 10) lines++
  return { size: content.length, lines }
}

/** What one journal record did (or meant to do) to one path. */
export interface PathChange {
  readonly seq: number
  readonly path: string
  readonly state: RecordState
  readonly before: FileState
  /** What the call intended to leave, when known in advance. */
  readonly after: FileState | null
}

export type Step =
  | { readonly _tag: "Restore"; readonly path: string; readonly to: FileState }
  | { readonly _tag: "Skip"; readonly path: string; readonly reason: string }
  | { readonly _tag: "Refuse"; readonly path: string; readonly reason: string }

export const absent: FileState = { hash: null, mode: null }

export const permissions = (mode: number): number => mode & 0o7777

/** Same content (or both absent) and, when both are known, the same permission bits. */
export const sameState = (a: FileState, b: FileState): boolean =>
  a.hash === b.hash &&
  (a.hash === null || a.mode === null || b.mode === null || permissions(a.mode) === permissions(b.mode))

const count = (n: number, one: string) => `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`
const modeOf = (s: FileState) => (s.mode === null ? "" : `, mode ${permissions(s.mode).toString(8)}`)

/**
 * A state as words: "absent", "a directory" (a hash of the form `kind:` marks something that is not a regular
 * file), or "a file of 1,204 bytes in 40 lines (mode 644)" (without its size when that is not known).
 */
export const describe = (s: FileState): string => {
  if (s.hash === null) return "absent"
  if (s.hash.endsWith(":")) return `a ${s.hash.slice(0, -1)}`
  const mode = modeOf(s).slice(2)
  const sized = s.size === undefined ? "a file" : `a file of ${count(s.size, "byte")}${s.lines === undefined ? "" : ` in ${count(s.lines, "line")}`}`
  return mode === "" ? sized : `${sized} (${mode})`
}

/**
 * How a path differs from what the turn left (or the undo left), in words a person can check: deleted, created,
 * replaced by a folder, its size and lines now and then, "the same size, other content", or only its mode.
 */
export const difference = (now: FileState, left: ReadonlyArray<FileState>, by: string): string => {
  const was = [...new Set(left.map(describe))].join(" or ")
  const file = (s: FileState) => s.hash !== null && !s.hash.endsWith(":")
  if (now.hash === null) return `it was deleted since ${by}, which left ${was}`
  if (!file(now)) return `it is now ${describe(now)}; ${by} left ${was}`
  const then = left.find(file)
  if (then === undefined) return `${describe(now)} was made there since ${by}, which left it ${was}`
  if (then.hash === now.hash) return `its mode changed since ${by}: now ${permissions(now.mode ?? 0).toString(8)}, ${by} left ${permissions(then.mode ?? 0).toString(8)}`
  const sizes = (s: FileState) => (s.size === undefined ? undefined : `${count(s.size, "byte")}${s.lines === undefined ? "" : ` in ${count(s.lines, "line")}`}`)
  const a = sizes(now)
  const b = sizes(then)
  if (a === undefined || b === undefined) return `its content changed since ${by}`
  return a === b ? `its content changed since ${by}: the same size (${a}), other content` : `its content changed since ${by}: now ${a}, ${by} left ${b}`
}

/**
 * Whether a change may have changed its path: not a call that failed (a file tool that fails has left nothing),
 * nor one that meant to leave the path as it found it. A turn of such changes only is no checkpoint.
 */
export const effective = (change: PathChange): boolean =>
  change.state !== "failed" && !(change.after !== null && sameState(change.before, change.after))

/** Each path the changes touched, in path order, with its first and last change (by sequence). */
const byPath = (
  changes: ReadonlyArray<PathChange>
): ReadonlyArray<{ readonly path: string; readonly first: PathChange; readonly last: PathChange }> => {
  const ends = new Map<string, { readonly first: PathChange; last: PathChange }>()
  for (const change of [...changes].sort((a, b) => a.seq - b.seq)) {
    const found = ends.get(change.path)
    if (found === undefined) ends.set(change.path, { first: change, last: change })
    else found.last = change
  }
  return [...ends.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, { first, last }]) => ({ path, first, last }))
}

/** The states the turn may have left a path in: a committed last call left its after-image; any other, either. */
const leftBy = (last: PathChange): ReadonlyArray<FileState> | string =>
  last.state === "committed"
    ? last.after === null ? `the result of #${last.seq} was not recorded` : [last.after]
    : [last.before, ...(last.after === null ? [] : [last.after])]

const oneOf = (current: FileState, states: ReadonlyArray<FileState>): boolean =>
  states.some((s) => sameState(current, s))

/**
 * Undo: every path back to its state before the turn's first call on it. Accepts a path already restored
 * (a crashed undo re-run), refuses one that is neither what the turn left nor what it found.
 */
export const planUndo = (
  changes: ReadonlyArray<PathChange>,
  current: (path: string) => FileState
): ReadonlyArray<Step> =>
  byPath(changes).flatMap(({ path, first, last }): ReadonlyArray<Step> => {
    const target = first.before
    const now = current(path)
    if (sameState(now, target)) return [{ _tag: "Skip", path, reason: "it is already as it was before the turn" }]
    const left = leftBy(last)
    if (typeof left === "string") return [{ _tag: "Refuse", path, reason: `${left}, so there is no telling whether ${path} changed since` }]
    if (!oneOf(now, left)) {
      return [{ _tag: "Refuse", path, reason: difference(now, left, "the turn") }]
    }
    return [{ _tag: "Restore", path, to: target }]
  })

/**
 * Redo: every path to the state the turn's last call on it left. Only a committed last call is re-applied
 * (an unconfirmed one would be a re-execution); a path must be as before the turn (or already redone).
 */
export const planRedo = (
  changes: ReadonlyArray<PathChange>,
  current: (path: string) => FileState
): ReadonlyArray<Step> =>
  byPath(changes).flatMap(({ path, first, last }): ReadonlyArray<Step> => {
    if (last.state !== "committed" || last.after === null) {
      return [{ _tag: "Refuse", path, reason: `the last change of ${path} in the turn (#${last.seq}) was never confirmed (it is ${last.state}), and redo never repeats an unconfirmed call` }]
    }
    const target = last.after
    const now = current(path)
    if (sameState(now, target)) return [{ _tag: "Skip", path, reason: "it is already as the turn left it" }]
    if (!sameState(now, first.before)) {
      return [{ _tag: "Refuse", path, reason: difference(now, [first.before], "the undo") }]
    }
    return [{ _tag: "Restore", path, to: target }]
  })

/**
 * The tool of the journal record of one file restored by an undo or redo run (`undo.file`, `redo.file`); the run's
 * own record has the action as its tool. Both carry the run's target (`restores`).
 */
export const fileTool = (action: "undo" | "redo"): string => `${action}.file`

/** Whether a restore record is a run's own (not one of its files'): only runs say what a checkpoint's status is. */
export const isRun = (tool: string): boolean => tool === "undo" || tool === "redo"

export class UndoError extends Schema.TaggedError<UndoError>()("UndoError", {
  action: Schema.Literal("undo", "redo"),
  reason: Schema.String
}) {
  override get message() {
    return `${this.action}: ${this.reason}`
  }
}

/** `undo`/`redo` of a turn that changed no file (or is unknown): there is nothing to restore. */
export class NothingToRestore extends Schema.TaggedError<NothingToRestore>()("NothingToRestore", {
  action: Schema.Literal("undo", "redo"),
  session: Schema.String,
  turn: Schema.Number
}) {
  override get message() {
    return `nothing to ${this.action}: turn ${this.session}/${this.turn} changed no file; \`minicode checkpoints\` lists the turns that did`
  }
}
