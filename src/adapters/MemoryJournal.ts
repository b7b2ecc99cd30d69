/** An in-memory Journal: same contract as the SQLite one, no durability. For tests and dry runs. */
import { Effect, Layer, Option, Ref } from "effect"
import { Journal, type JournalRecord } from "../ports/Journal.js"

export const make = Effect.gen(function* () {
  const records = yield* Ref.make<ReadonlyArray<JournalRecord>>([])
  const finalized = yield* Ref.make<ReadonlySet<string>>(new Set())
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const hash = (text: string) => {
    let h = 0x811c9dc5
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
    return h.toString(16).padStart(8, "0")
  }
  return Journal.of({
    begin: (intent) =>
      Effect.gen(function* () {
        const at = yield* now
        return yield* Ref.modify(records, (rs) => {
          const record: JournalRecord = {
            id: `m${rs.length + 1}`,
            seq: rs.length + 1,
            session: intent.session,
            turn: intent.turn,
            tool: intent.tool,
            capability: intent.capability,
            paths: intent.paths,
            argsHash: hash(intent.canonicalArgs),
            requestId: intent.requestId ?? null,
            remote: intent.remote,
            state: "pending",
            note: null,
            createdAt: at,
            updatedAt: at,
            finalized: false
          }
          return [record, [...rs, record]] as const
        })
      }),
    complete: (id, state, note) =>
      Effect.flatMap(now, (at) =>
        Ref.update(records, (rs) => rs.map((r) => (r.id === id ? { ...r, state, note: note ?? null, updatedAt: at } : r)))
      ),
    finalizeTurn: (session, turn) => Ref.update(finalized, (s) => new Set(s).add(`${session}/${turn}`)),
    findByRequest: (session, requestId) =>
      Ref.get(records).pipe(
        Effect.map((rs) => Option.fromNullable(rs.findLast((r) => r.session === session && r.requestId === requestId)))
      ),
    list: (filter) =>
      Effect.all([Ref.get(records), Ref.get(finalized)]).pipe(
        Effect.map(([rs, fin]) =>
          rs
            .map((r) => ({ ...r, finalized: fin.has(`${r.session}/${r.turn}`) }))
            .filter((r) => (filter?.turn === undefined || r.turn === filter.turn) && (filter?.state === undefined || r.state === filter.state))
        )
      )
  })
})

export const layer = Layer.effect(Journal, make)
