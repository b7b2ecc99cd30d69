/** The journal's hot path: the per-call statements on a plain better-sqlite3 connection (see the comment below). */
import { createRequire } from "node:module"
import { Effect } from "effect"
import { JournalError } from "../../ports/Journal.js"

// ---------------------------------------------------------------------------------------------------------------

/**
 * The per-call statements (an intent before each mutation, its terminal state after) on a second, plain
 * better-sqlite3 connection to the same WAL database: the same SQL the Effect client would send, without its
 * per-statement machinery, which cost more than the write being journaled. Migrations, recovery, undo and
 * listings stay on the Effect client. Measured by `npm run bench -- journal` (bench/journal.bench.ts, "journal
 * statements per call"): the same intent (one 1 KiB before-image) and terminal update on the one Effect connection
 * cost 5.5× to 7.8× what they cost here (medians of 5 paired rounds of 600 and 1,000 calls, 2 cores under load:
 * ~1 ms against ~0.13 to 0.21 ms per journaled call). So the adapter owns both connections, behind the Journal port.
 */
export interface HotRow {
  readonly id: string
  readonly session: string
  readonly turn: number
  readonly tool: string
  readonly capability: string
  readonly paths: string
  readonly args_hash: string
  readonly request_id: string | null
  readonly remote: number
  readonly state: string
  readonly note: null
  readonly created_at: number
  readonly updated_at: number
  readonly finalized: number
  readonly answered: number
  readonly restore_action: string | null
  readonly restore_session: string | null
  readonly restore_turn: number | null
  readonly sum: string
  readonly state_sum: string
  readonly summary: string | null
  readonly writer: string | null
}

export interface HotSnapshot {
  readonly path: string
  readonly before_hash: string | null
  readonly before_mode: number | null
  readonly after_known: number
  readonly after_hash: string | null
  readonly after_mode: number | null
}

export interface BetterStatement {
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  get(...params: ReadonlyArray<unknown>): unknown
}
export interface BetterDatabase {
  prepare(source: string): BetterStatement
  pragma(source: string): unknown
  transaction<A extends ReadonlyArray<unknown>, R>(f: (...args: A) => R): { immediate: (...args: A) => R }
  close(): void
}
export type BetterConstructor = new (filename: string, options?: { readonly timeout?: number }) => BetterDatabase

export const isConstructor = (value: unknown): value is BetterConstructor => typeof value === "function"

/**
 * Each journaled write appends ~14 pages to the WAL. Copying them into the database (a checkpoint: a few MiB of
 * writes and two fsyncs, ~20 ms here) is done by `idle`, when the caller has nothing running; a write checkpoints
 * in line only once the WAL reaches this many pages (40 MiB), the backstop for a long burst of writes.
 */
export const walCheckpointPages = 10_000
/** The WAL file is cut back to this size once a checkpoint let it restart (it keeps its blocks up to here). */
export const walKeptBytes = 16 * 1024 * 1024
/**
 * The page cache of each connection. better-sqlite3 builds SQLite with a 16 MiB default; the journal's hot set (the
 * B-trees' upper pages and their newest leaves) is far smaller, and a full cache was 14 MiB of the server's memory.
 */
export const cachePages = -1024

export const hotPath = (dbPath: string, busyMs: number, full: boolean) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const loaded: unknown = createRequire(import.meta.url)("better-sqlite3")
        if (!isConstructor(loaded)) throw new Error("better-sqlite3 did not load")
        const db = new loaded(dbPath, { timeout: busyMs })
        db.pragma(`synchronous = ${full ? "FULL" : "NORMAL"}`)
        db.pragma(`cache_size = ${cachePages}`)
        db.pragma(`wal_autocheckpoint = ${walCheckpointPages}`)
        db.pragma(`journal_size_limit = ${walKeptBytes}`)
        const insertRecord = db.prepare(`INSERT INTO records (id, session, turn, tool, capability, paths, args_hash, request_id,
          remote, state, note, created_at, updated_at, finalized, answered, restore_action, restore_session, restore_turn, sum,
          state_sum, summary, writer) VALUES (@id, @session, @turn, @tool, @capability, @paths, @args_hash, @request_id, @remote, @state, @note,
          @created_at, @updated_at, @finalized, @answered, @restore_action, @restore_session, @restore_turn, @sum, @state_sum, @summary, @writer)`)
        const insertBlob = db.prepare("INSERT OR IGNORE INTO blobs (hash, size, content) VALUES (?, ?, ?)")
        const insertSnapshot = db.prepare(`INSERT OR REPLACE INTO snapshots (record_seq, path, before_hash, before_mode,
          after_known, after_hash, after_mode) VALUES (@record_seq, @path, @before_hash, @before_mode, @after_known,
          @after_hash, @after_mode)`)
        const updateState = db.prepare(`UPDATE records SET state = ?, note = ?, updated_at = ?, state_sum = ?
          WHERE id = ? AND state = 'pending'`)
        const byRequest = db.prepare("SELECT * FROM records WHERE session = ? AND request_id = ? ORDER BY seq DESC LIMIT 1")
        // By the (session, request_id) index; not part of any checksum (it decides only whether a retry is refused).
        const markAnswered = db.prepare("UPDATE records SET answered = 1 WHERE session = ? AND request_id = ? AND answered = 0")
        // The insert comes first: it takes the write lock (IMMEDIATE) through the busy handler.
        const begin = db.transaction(
          (row: HotRow, blobs: ReadonlyArray<readonly [string, Uint8Array]>, snapshots: ReadonlyArray<HotSnapshot>): number => {
            const seq = Number(insertRecord.run(row).lastInsertRowid)
            for (const [hash, content] of blobs) insertBlob.run(hash, content.byteLength, content)
            for (const snapshot of snapshots) insertSnapshot.run({ record_seq: seq, ...snapshot })
            return seq
          }
        )
        return {
          db,
          begin: (row: HotRow, blobs: ReadonlyArray<readonly [string, Uint8Array]>, snapshots: ReadonlyArray<HotSnapshot>) =>
            begin.immediate(row, blobs, snapshots),
          complete: (id: string, state: string, note: string | null, now: number, sum: string) =>
            updateState.run(state, note, now, sum, id).changes,
          findByRequest: (session: string, requestId: string): ReadonlyArray<unknown> => {
            const row = byRequest.get(session, requestId)
            return row === undefined ? [] : [row]
          },
          answered: (session: string, requestId: string): void => {
            markAnswered.run(session, requestId)
          },
          // PASSIVE: copies what no reader still needs, and never waits for another process's lock.
          checkpoint: (): void => {
            db.pragma("wal_checkpoint(PASSIVE)")
          }
        }
      },
      catch: (cause) => new JournalError({ reason: `cannot open ${dbPath}: ${cause instanceof Error ? cause.message : String(cause)}` })
    }),
    (hot) => Effect.sync(() => hot.db.close())
  )
