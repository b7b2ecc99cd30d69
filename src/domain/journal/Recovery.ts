/**
 * Recovery planning, pure: from the unfinalised journal records (and whatever damage the adapter found) to a
 * plan of advice. A plan is never an action: nothing here, nor anywhere, re-executes a call.
 *
 * The one safety property: an item is `done` only when its record says `committed` for a local effect, or a
 * human resolved it as applied. Everything else — pending, unknown, remote, damaged — needs someone to look.
 */
import { Order } from "effect"

export type RecordState = "pending" | "committed" | "failed" | "unknown"
export type Resolution = "applied" | "absent"

/** What recovery needs to know about one journal record (a `JournalRecord` satisfies it). */
export interface RecoveryInput {
  readonly seq: number
  readonly session: string
  readonly turn: number
  readonly tool: string
  readonly paths: ReadonlyArray<string>
  readonly remote: boolean
  readonly state: RecordState
  readonly finalized: boolean
  readonly note: string | null
  readonly resolution?: Resolution | null | undefined
}

/** Something the adapter could not trust: a row that fails its checksum, a database that fails its check. */
export interface Damage {
  /** The record concerned, when known; null for the database as a whole. */
  readonly seq: number | null
  readonly reason: string
}

export type Classification = "done" | "verify" | "failed" | "read-back" | "ambiguous"

export interface RecoveryItem {
  readonly seq: number | null
  readonly session: string | null
  readonly turn: number | null
  readonly tool: string | null
  /** Workspace paths to inspect. */
  readonly paths: ReadonlyArray<string>
  readonly state: RecordState | null
  readonly remote: boolean
  readonly resolution: Resolution | null
  readonly classification: Classification
  readonly advice: string
}

export interface RecoveryPlan {
  readonly items: ReadonlyArray<RecoveryItem>
  /** True when every item is `done`: nothing needs a human. A damaged journal is never clean. */
  readonly clean: boolean
  readonly counts: Readonly<Record<Classification, number>>
}

/** Records the journal writes about itself when it finds a torn write at open. */
export const integrityTool = "journal.integrity"

const pathsText = (paths: ReadonlyArray<string>): string => (paths.length === 0 ? "its effects" : paths.join(", "))

/** Classifies one record. Total and pure. */
export const classify = (record: RecoveryInput): { readonly classification: Classification; readonly advice: string } => {
  const resolution = record.resolution ?? null
  if (resolution === "applied") {
    return { classification: "done", advice: "resolved by a human as applied: do not repeat" }
  }
  if (resolution === "absent") {
    return {
      classification: "failed",
      advice: "resolved by a human as absent: the effect did not happen; may retry after checking"
    }
  }
  if (record.tool === integrityTool) {
    return {
      classification: "ambiguous",
      advice: `the journal was found damaged (${record.note ?? "no detail"}): its last records may be missing; inspect the recent changes before repeating anything`
    }
  }
  switch (record.state) {
    case "committed":
      return record.remote
        ? {
          classification: "read-back",
          advice: "the server said it succeeded: read the remote state back before relying on it; do not repeat blindly"
        }
        : { classification: "done", advice: "done, do not repeat" }
    case "failed":
      return { classification: "failed", advice: "failed, may retry after checking" }
    case "pending":
    case "unknown":
      return record.remote
        ? {
          classification: "read-back",
          advice: `the remote call may or may not have happened (${record.state}): read the server's state back before repeating`
        }
        : {
          classification: "verify",
          advice: `may or may not have happened (${record.state}): inspect ${pathsText(record.paths)} before repeating`
        }
  }
}

const bySeq = Order.mapInput(Order.number, (item: RecoveryItem) => item.seq ?? -1)

/**
 * The plan for the unfinalised records. Finalised records are ignored (their turn was declared durable);
 * every damage becomes an `ambiguous` item, and a record named by a damage is reported only as ambiguous.
 */
export const plan = (records: ReadonlyArray<RecoveryInput>, damage: ReadonlyArray<Damage> = []): RecoveryPlan => {
  const damaged = new Set(damage.flatMap((d) => (d.seq === null ? [] : [d.seq])))
  const fromRecords = records
    .filter((r) => !r.finalized && !damaged.has(r.seq))
    .map((r): RecoveryItem => ({
      seq: r.seq,
      session: r.session,
      turn: r.turn,
      tool: r.tool,
      paths: r.paths,
      state: r.state,
      remote: r.remote,
      resolution: r.resolution ?? null,
      ...classify(r)
    }))
  const fromDamage = damage.map((d): RecoveryItem => {
    const record = d.seq === null ? undefined : records.find((r) => r.seq === d.seq)
    return {
      seq: d.seq,
      session: record?.session ?? null,
      turn: record?.turn ?? null,
      tool: record?.tool ?? null,
      paths: record?.paths ?? [],
      state: null,
      remote: record?.remote ?? false,
      resolution: null,
      classification: "ambiguous",
      advice: `the journal cannot be trusted here (${d.reason}): treat ${
        record === undefined ? "any recent call" : pathsText(record.paths)
      } as unverified and inspect before repeating`
    }
  })
  const items = [...fromRecords, ...fromDamage].sort(bySeq)
  const counts: Record<Classification, number> = { done: 0, verify: 0, failed: 0, "read-back": 0, ambiguous: 0 }
  for (const item of items) counts[item.classification] += 1
  return { items, clean: items.every((item) => item.classification === "done"), counts }
}

/** `minicode recover` says each item in one sentence: see RecoveryText.ts. */

/** What `recover resolve` needs to know of the record it resolves. */
export interface ResolveTarget {
  readonly session: string
  readonly turn: number
  readonly paths: ReadonlyArray<string>
  readonly state: RecordState
  readonly remote: boolean
  readonly finalized: boolean
}

/** Why record `seq` cannot be resolved, or undefined. A committed local call is settled, unless the journal is damaged. */
export const refuseResolve = (seq: number, target: ResolveTarget | undefined, damaged: boolean): string | undefined => {
  if (target === undefined) return `no readable record #${seq}`
  if (target.finalized) return `#${seq} belongs to a finalised turn`
  if (target.state === "committed" && !target.remote && !damaged) return `#${seq} is committed: nothing to resolve`
  return undefined
}

/** The journal's own record of a resolution: in the resolved call's turn, over its paths, never remote. */
export const resolveIntent = (seq: number, target: ResolveTarget, outcome: Resolution) => ({
  session: target.session,
  turn: target.turn,
  tool: "recover.resolve",
  capability: "write" as const,
  paths: target.paths,
  canonicalArgs: JSON.stringify({ seq, outcome }),
  remote: false
})

export const resolveNote = (seq: number, outcome: Resolution, by?: string): string =>
  `#${seq} resolved ${outcome}${by === undefined ? "" : ` by ${by}`}`
