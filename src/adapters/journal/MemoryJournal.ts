/**
 * An in-memory journal with the SQLite adapter's semantics (the contract suite runs against both): for tests,
 * dry runs and a session that chose not to persist. State lives in one Ref the layer creates.
 */
import { randomUUID } from "node:crypto"
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { sha256 } from "../crypto/Sha256.js"
import * as Recovery from "../../domain/journal/Recovery.js"
import * as Undo from "../../domain/journal/Undo.js"
import type { PathChange } from "../../domain/journal/Undo.js"
import { type Checkpoint, Checkpoints, type CheckpointStatus, type CheckpointsShape } from "../../ports/Checkpoints.js"
import { type Intent, Journal, JournalError, type JournalRecord, type JournalShape, type JournalState, type Snapshot, type Terminal } from "../../ports/Journal.js"

interface StoredChange {
  readonly seq: number
  readonly path: string
  readonly before: { readonly hash: string | null; readonly mode: number | null }
  readonly after: { readonly hash: string | null; readonly mode: number | null } | null
}

interface State {
  readonly nextSeq: number
  readonly records: ReadonlyArray<JournalRecord>
  readonly changes: ReadonlyArray<StoredChange>
  readonly blobs: ReadonlyMap<string, Uint8Array>
}


const empty: State = { nextSeq: 1, records: [], changes: [], blobs: new Map() }

export interface Options {
  readonly retentionTurns?: number
}

const key = (session: string, turn: number) => JSON.stringify([session, turn])

/** Keeps the last `retention` turns by newest call, and every unfinalised record. */
const prune = (state: State, retention: number): State => {
  const last = new Map<string, number>()
  for (const r of state.records) {
    if (r.restores === null) last.set(key(r.session, r.turn), Math.max(last.get(key(r.session, r.turn)) ?? 0, r.seq))
  }
  const kept = new Set([...last.entries()].sort(([, a], [, b]) => b - a).slice(0, retention).map(([k]) => k))
  const records = state.records.filter((r) =>
    !r.finalized || kept.has(r.restores === null ? key(r.session, r.turn) : key(r.restores.session, r.restores.turn))
  )
  const seqs = new Set(records.map((r) => r.seq))
  const changes = state.changes.filter((c) => seqs.has(c.seq))
  const used = new Set(changes.flatMap((c) => [c.before.hash, c.after?.hash ?? null]))
  const blobs = new Map([...state.blobs].filter(([hash]) => used.has(hash)))
  return { ...state, records, changes, blobs }
}

export const make = (options: Options = {}): Effect.Effect<{ readonly journal: JournalShape; readonly checkpoints: CheckpointsShape }> =>
  Effect.gen(function* () {
    const retention = Math.max(1, options.retentionTurns ?? 50)
    const ref = yield* Ref.make(empty)

    const begin = (intent: Intent, snapshots: ReadonlyArray<Snapshot>, intended: ReadonlyArray<Snapshot> = []) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(ref, (state): [JournalRecord, State] => {
          const blobs = new Map(state.blobs)
          const put = (content: Uint8Array | null): string | null => {
            if (content === null) return null
            const hash = sha256(content)
            blobs.set(hash, Uint8Array.from(content))
            return hash
          }
          const record: JournalRecord = {
            id: randomUUID(),
            seq: state.nextSeq,
            session: intent.session,
            turn: intent.turn,
            tool: intent.tool,
            capability: intent.capability,
            paths: [...intent.paths],
            argsHash: sha256(intent.canonicalArgs),
            requestId: intent.requestId ?? null,
            remote: intent.remote,
            state: "pending",
            note: null,
            createdAt: now,
            updatedAt: now,
            finalized: false,
            answered: false,
            resolution: null,
            restores: intent.restores ?? null,
            ...(intent.summary === undefined ? {} : { summary: intent.summary })
          }
          const changes = snapshots.map((snap): StoredChange => {
            const after = intended.find((i) => i.path === snap.path)
            return {
              seq: record.seq,
              path: snap.path,
              before: { hash: put(snap.content), mode: snap.content === null ? null : snap.mode },
              after: after === undefined ? null : { hash: put(after.content), mode: after.content === null ? null : after.mode }
            }
          })
          return [record, {
            nextSeq: state.nextSeq + 1,
            records: [...state.records, record],
            changes: [...state.changes, ...changes],
            blobs
          }]
        }))

    const update = (f: (state: State, now: number) => Outcome<State>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatten(Ref.modify(ref, (state): [Effect.Effect<void, JournalError>, State] => {
          const result = f(state, now)
          return typeof result === "string" ? [Effect.fail(new JournalError({ reason: result })), state] : [Effect.void, result]
        })))

    const complete = (id: string, terminal: Terminal, note?: string) =>
      update((state, now) => {
        const record = state.records.find((r) => r.id === id)
        if (record === undefined) return `no record ${id}`
        if (record.state !== "pending") return record.state === terminal ? state : `record #${record.seq} is already ${record.state}`
        return {
          ...state,
          records: state.records.map((r) => (r.id === id ? { ...r, state: terminal, note: note ?? null, updatedAt: now } : r))
        }
      })

    const finalizeTurn = (session: string, turn: number) =>
      update((state, now) =>
        prune({
          ...state,
          records: state.records.map((r) =>
            r.session === session && r.turn === turn && !r.finalized ? { ...r, finalized: true, updatedAt: now } : r
          )
        }, retention)
      )

    const findByRequest = (session: string, requestId: string) =>
      Effect.map(Ref.get(ref), (state) =>
        Option.fromNullable(state.records.findLast((r) => r.session === session && r.requestId === requestId)))

    const answered = (session: string, requestId: string) =>
      Ref.update(ref, (state) =>
        state.records.some((r) => r.session === session && r.requestId === requestId && !r.answered)
          ? {
              ...state,
              records: state.records.map((r) => (r.session === session && r.requestId === requestId && !r.answered ? { ...r, answered: true } : r))
            }
          : state
      )

    const lastFinalizedTurn = (session: string) =>
      Effect.map(Ref.get(ref), (state) =>
        state.records.reduce((max, r) => (r.session === session && r.finalized ? Math.max(max, r.turn) : max), 0))

    const lastTurn = (session: string) =>
      Effect.map(Ref.get(ref), (state) => state.records.reduce((max, r) => (r.session === session ? Math.max(max, r.turn) : max), 0))

    const list = (filter?: { readonly turn?: number; readonly state?: JournalState; readonly session?: string }) =>
      Effect.map(Ref.get(ref), (state) =>
        state.records.filter((r) =>
          (filter?.turn === undefined || r.turn === filter.turn) &&
          (filter?.state === undefined || r.state === filter.state) &&
          (filter?.session === undefined || r.session === filter.session)
        ))

    const recover = Effect.map(Ref.get(ref), (state) => Recovery.plan(state.records))

    const resolve = (seq: number, outcome: Recovery.Resolution, by?: string) =>
      Effect.gen(function* () {
        const target = (yield* Ref.get(ref)).records.find((r) => r.seq === seq)
        const refused = Recovery.refuseResolve(seq, target, false)
        if (refused !== undefined || target === undefined) return yield* new JournalError({ reason: refused ?? `no readable record #${seq}` })
        const record = yield* begin(Recovery.resolveIntent(seq, target, outcome), [])
        const note = Recovery.resolveNote(seq, outcome, by)
        const now = yield* Clock.currentTimeMillis
        const done: JournalRecord = { ...record, state: "committed", note, finalized: true, updatedAt: now }
        yield* Ref.update(ref, (state) => ({
          ...state,
          records: state.records.map((r) =>
            r.seq === seq ? { ...r, resolution: outcome, updatedAt: now } : r.id === record.id ? done : r
          )
        }))
        return done
      })

    const journal = Journal.of({
      begin,
      complete,
      finalizeTurn,
      findByRequest,
      answered,
      lastFinalizedTurn,
      lastTurn,
      list,
      recover,
      resolve,
      idle: Effect.void
    })

    const checkpointList = Effect.map(Ref.get(ref), (state) => {
      const bySeq = new Map(state.records.map((r) => [r.seq, r]))
      const turns = new Map<string, { session: string; turn: number; seqs: Array<number>; paths: Set<string> }>()
      for (const change of state.changes) {
        const r = bySeq.get(change.seq)
        if (r === undefined || r.restores !== null) continue
        const k = key(r.session, r.turn)
        const entry = turns.get(k) ?? { session: r.session, turn: r.turn, seqs: [], paths: new Set<string>() }
        entry.seqs.push(r.seq)
        entry.paths.add(change.path)
        turns.set(k, entry)
      }
      const status = new Map<string, CheckpointStatus>()
      for (const r of state.records) {
        if (r.restores === null || !Undo.isRun(r.tool)) continue
        status.set(
          key(r.restores.session, r.restores.turn),
          r.state === "committed"
            ? (r.restores.action === "undo" ? "undone" : "applied")
            : r.restores.action === "undo" ? "undoing" : "redoing"
        )
      }
      return [...turns.values()].map((t): Checkpoint => {
        const records = state.records.filter((r) => r.session === t.session && r.turn === t.turn && r.restores === null)
        return {
          session: t.session,
          turn: t.turn,
          firstSeq: Math.min(...t.seqs),
          lastSeq: Math.max(...t.seqs),
          createdAt: Math.min(...records.map((r) => r.createdAt)),
          finalized: records.every((r) => r.finalized),
          paths: [...t.paths],
          status: status.get(key(t.session, t.turn)) ?? "applied"
        }
      }).sort((a, b) => b.lastSeq - a.lastSeq)
    })

    const changes = (session: string, turn: number) =>
      Effect.map(Ref.get(ref), (state) => {
        const records = new Map(
          state.records.filter((r) => r.session === session && r.turn === turn && r.restores === null).map((r) => [r.seq, r])
        )
        return state.changes.flatMap((c): ReadonlyArray<PathChange> => {
          const r = records.get(c.seq)
          if (r === undefined) return []
          const effective = r.resolution === "applied" ? "committed" : r.resolution === "absent" ? "failed" : r.state
          return [{ seq: c.seq, path: c.path, state: effective, before: c.before, after: c.after }]
        }).sort((a, b) => a.seq - b.seq || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      })

    const blob = (hash: string) => Effect.map(Ref.get(ref), (state) => Option.fromNullable(state.blobs.get(hash)))

    const checkpoints = Checkpoints.of({ list: checkpointList, changes, blob, address: sha256 })
    return { journal, checkpoints }
  })

/** A string is the reason of a refused update. */
type Outcome<A> = A | string

export const layer = (options: Options = {}): Layer.Layer<Journal | Checkpoints> =>
  Layer.effectContext(
    Effect.map(make(options), ({ checkpoints, journal }) =>
      Context.make(Journal, journal).pipe(Context.add(Checkpoints, checkpoints)))
  )
