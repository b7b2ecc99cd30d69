/**
 * The replay table of `mcp serve`: by JSON-RPC request id, what became of each call this connection saw (running,
 * finished and kept for a retry, or only fingerprinted), within a size and an entry budget. Plain data and
 * transitions: each function takes the table and returns what the caller needs with the table after it, the shape
 * `Ref.modify` wants, so the server keeps it in one Ref and every change is one atomic step. The fiber running a
 * call and the duplicates waiting for it are type parameters here (`O`, `W`): the table never touches them.
 */
import type { Outcome, TextResult } from "./Protocol.js"

export interface Running<O, W> {
  readonly _tag: "Running"
  /** The fiber of the request that runs the execution (duplicates interrupt it when they are cancelled). */
  readonly owner: O
  /** Duplicates of the request waiting for the outcome (rare: a Deferred is made only for them). */
  readonly waiters: ReadonlyArray<W>
}

/** Only the outcome is kept once a call finished (not its fiber): a retry with the same id replays it. */
export interface Finished {
  readonly _tag: "Finished"
  readonly outcome: Outcome
  readonly bytes: number
}

/**
 * A read-only call's result once it is no longer recent: only its fingerprint. A retry runs the read again (reads
 * change nothing) and answers with the result only if it is the very same, else with an explicit error.
 */
export interface Fingerprinted {
  readonly _tag: "Fingerprinted"
  readonly fingerprint: string
}

export interface Entry<O, W> {
  /** Which call the id was used for (see `Protocol.identityOf`): a retry with other arguments is a conflict. */
  readonly identity: string
  readonly seq: number
  /** A read-only call with no effect outside the workspace: it may run again rather than keep its result whole. */
  readonly rerunnable: boolean
  readonly state: Running<O, W> | Finished | Fingerprinted
}

/** A recent read-only result kept whole, oldest first. */
interface Recent {
  readonly wire: string
  readonly seq: number
  /** Its size, as `Table.bytes` counts it. */
  readonly bytes: number
  /** What it counts for in the recent window: its size and a fixed cost per entry. */
  readonly weight: number
}

export interface Table<O, W> {
  /**
   * By wire id, in the order the ids were first seen (so oldest first). A Map changed in place, and only inside
   * `Ref.modify` on the table's one Ref, so each change is still one atomic step. A persistent HashMap copied its
   * path to the root on every change: under a stream of calls those copies outlived the young generation, and with
   * 10,000 entries the old generation's collections cost ~10 % of 32-way read throughput.
   */
  readonly entries: Map<string, Entry<O, W>>
  readonly seq: number
  /** Size of the results kept whole. */
  readonly bytes: number
  readonly recent: ReadonlyArray<Recent>
  /** The recent window's weight (see `Recent.weight`). */
  readonly recentBytes: number
}

export interface Budget {
  /** Results kept for replay, by total size; the oldest finished ones go first. */
  readonly replayBytes: number
  readonly replayEntries: number
  /** Read-only results are kept whole only while they are this recent (by size); older ones keep a fingerprint. */
  readonly replayWholeReadBytes: number
  /** The fingerprint of a result (`Protocol.fingerprintOf` over a hash). */
  readonly fingerprint: (result: TextResult) => string
}

export const empty = <O, W>(): Table<O, W> => ({ entries: new Map(), seq: 0, bytes: 0, recent: [], recentBytes: 0 })

/** What a request with a wire id meets in the table. */
export type Claim<O, W> =
  /** The id is new: this request runs the call (the entry is in the table, running). */
  | { readonly _tag: "Own"; readonly entry: Entry<O, W> }
  /** The id was used for another call. */
  | { readonly _tag: "Conflict" }
  /** A retry of a finished call: its outcome. */
  | { readonly _tag: "Replay"; readonly outcome: Outcome }
  /** A retry of a read whose result is no longer held whole: run it again, answer if it gives this fingerprint. */
  | { readonly _tag: "Rerun"; readonly fingerprint: string }
  /** A duplicate of a call still running: wait for it (`join`). */
  | { readonly _tag: "Join"; readonly seq: number; readonly owner: O }

export const claim = <O, W>(
  t: Table<O, W>,
  wire: string,
  call: { readonly identity: string; readonly rerunnable: boolean; readonly owner: O }
): readonly [Claim<O, W>, Table<O, W>] => {
  const found = t.entries.get(wire)
  if (found === undefined) {
    const entry: Entry<O, W> = { identity: call.identity, seq: t.seq + 1, rerunnable: call.rerunnable, state: { _tag: "Running", owner: call.owner, waiters: [] } }
    t.entries.set(wire, entry)
    return [{ _tag: "Own", entry }, { ...t, seq: t.seq + 1 }]
  }
  if (found.identity !== call.identity) return [{ _tag: "Conflict" }, t]
  const state = found.state
  switch (state._tag) {
    case "Finished":
      return [{ _tag: "Replay", outcome: state.outcome }, t]
    case "Fingerprinted":
      return [{ _tag: "Rerun", fingerprint: state.fingerprint }, t]
    case "Running":
      return [{ _tag: "Join", seq: found.seq, owner: state.owner }, t]
  }
}

export type Joined =
  | { readonly _tag: "Now"; readonly outcome: Outcome }
  /** The entry is gone (its owner was cancelled): the duplicate is told so. */
  | { readonly _tag: "Gone" }
  | { readonly _tag: "Wait" }
  | { readonly _tag: "Rerun"; readonly fingerprint: string }

/** A duplicate of entry `seq` under `wire` waits with `waiter`, unless that call is already over. */
export const join = <O, W>(t: Table<O, W>, wire: string, seq: number, waiter: W): readonly [Joined, Table<O, W>] => {
  const current = t.entries.get(wire)
  if (current === undefined || current.seq !== seq) return [{ _tag: "Gone" }, t]
  const state = current.state
  if (state._tag === "Finished") return [{ _tag: "Now", outcome: state.outcome }, t]
  if (state._tag === "Fingerprinted") return [{ _tag: "Rerun", fingerprint: state.fingerprint }, t]
  t.entries.set(wire, { ...current, state: { ...state, waiters: [...state.waiters, waiter] } })
  return [{ _tag: "Wait" }, t]
}

/** Read-only results past the recent window keep only their fingerprint (the oldest first). */
const fingerprintOld = <O, W>(t: Table<O, W>, budget: Budget): Table<O, W> => {
  if (t.recentBytes <= budget.replayWholeReadBytes) return t
  const entries = t.entries
  let bytes = t.bytes
  let recentBytes = t.recentBytes
  let dropped = 0
  for (const r of t.recent) {
    if (recentBytes <= budget.replayWholeReadBytes / 2) break
    dropped++
    recentBytes -= r.weight
    const found = entries.get(r.wire)
    if (found === undefined || found.seq !== r.seq || found.state._tag !== "Finished") continue
    const outcome = found.state.outcome
    if (outcome._tag !== "Result") continue
    entries.set(r.wire, { ...found, state: { _tag: "Fingerprinted", fingerprint: budget.fingerprint(outcome.result) } })
    bytes -= r.bytes
  }
  return { ...t, bytes, recent: t.recent.slice(dropped), recentBytes }
}

/** Keeps the table within its budget: drops the oldest finished entries (the Map keeps them first). */
const evict = <O, W>(t: Table<O, W>, budget: Budget): Table<O, W> => {
  const entries = t.entries
  if (t.bytes <= budget.replayBytes && entries.size <= budget.replayEntries) return t
  let bytes = t.bytes
  for (const [key, e] of entries) {
    if (bytes <= (budget.replayBytes * 3) / 4 && entries.size <= (budget.replayEntries * 3) / 4) break
    if (e.state._tag === "Running") continue
    entries.delete(key)
    bytes -= e.state._tag === "Finished" ? e.state.bytes : 0
  }
  // A removed entry may still be listed as recent: it no longer counts there.
  const recent = t.recent.filter((r) => entries.get(r.wire)?.seq === r.seq)
  return { ...t, bytes, recent, recentBytes: recent.reduce((sum, r) => sum + r.weight, 0) }
}

/**
 * Entry `entry` under `wire` finished with `outcome`: kept for replay (`keep`), or dropped. Returns the duplicates
 * waiting for it. An entry no longer there (or no longer running) is left alone.
 */
export const finish = <O, W>(
  t: Table<O, W>,
  wire: string,
  entry: Entry<O, W>,
  outcome: Outcome,
  keep: boolean,
  budget: Budget
): readonly [ReadonlyArray<W>, Table<O, W>] => {
  const current = t.entries.get(wire)
  if (current === undefined || current.seq !== entry.seq || current.state._tag !== "Running") return [[], t]
  const waiters = current.state.waiters
  if (!keep) {
    t.entries.delete(wire)
    return [waiters, t]
  }
  const bytes = outcome._tag === "Result" ? outcome.result.text.length * 2 : 64
  t.entries.set(wire, { ...entry, state: { _tag: "Finished", outcome, bytes } })
  const added = { ...t, bytes: t.bytes + bytes }
  // The window also counts a small cost per entry, so a stream of tiny results cannot make it long.
  const weight = bytes + 256
  const windowed =
    entry.rerunnable && outcome._tag === "Result"
      ? fingerprintOld({ ...added, recent: [...t.recent, { wire, seq: entry.seq, bytes, weight }], recentBytes: t.recentBytes + weight }, budget)
      : added
  return [waiters, evict(windowed, budget)]
}

/** The owners of the executions still running. */
export const running = <O, W>(t: Table<O, W>): ReadonlyArray<O> =>
  [...t.entries.values()].flatMap((e) => (e.state._tag === "Running" ? [e.state.owner] : []))

/** The owners of running read-only calls (nothing to lose by stopping them: see `Drain`). */
export const runningReads = <O, W>(t: Table<O, W>): ReadonlyArray<O> =>
  [...t.entries.values()].flatMap((e) => (e.state._tag === "Running" && e.rerunnable ? [e.state.owner] : []))
