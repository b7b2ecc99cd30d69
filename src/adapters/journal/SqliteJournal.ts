/**
 * The journal in one SQLite database per workspace (`.minicode/state.db`), shared by every process that works
 * there (a CLI call beside a running `mcp serve`): WAL, a busy timeout, schema by @effect/sql's migrator.
 *
 * Every write transaction starts with a write statement, so a process waiting for another's lock goes through
 * SQLite's busy handler instead of failing with SQLITE_BUSY. Rows carry sha256 checksums; a row or a database
 * that fails its check is reported by `recover` as ambiguous, and a damaged database refuses new intents.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as NodeCrypto from "node:crypto"
import { createRequire } from "node:module"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Clock, Context, Duration, Effect, Either, Layer, Option, Ref, Schedule, Schema, type Scope } from "effect"
import { sha256 } from "../crypto/Sha256.js"
import * as Recovery from "../../domain/journal/Recovery.js"
import type { FileState, PathChange } from "../../domain/journal/Undo.js"
import { type Checkpoint, Checkpoints, type CheckpointStatus, type CheckpointsShape } from "../../ports/Checkpoints.js"
import {
  type Intent,
  Journal,
  JournalError,
  type JournalRecord,
  type JournalShape,
  type JournalState,
  type Snapshot,
  type Terminal
} from "../../ports/Journal.js"

export interface Options {
  readonly dbPath: string
  /** How many turns keep their records and checkpoints once finalised (default 50). */
  readonly retentionTurns?: number
  /** Milliseconds a writer waits for another process's lock (default 5000). */
  readonly busyTimeoutMs?: number
  /**
   * `normal` (default): a commit survives a crash of the process (the tested failure) but may be lost with the
   * machine's power. `full`: fsync at every commit, durable across power loss, several times slower.
   */
  readonly synchronous?: "normal" | "full"
}

export const defaultRetentionTurns = 50

/** `.minicode/state.db` under a workspace root. */
export const dbPathFor = (root: string): string => NodePath.join(root, ".minicode", "state.db")


// ---------------------------------------------------------------------------------------------------------------
// Schema

const migrations = Migrator.fromRecord({
  "1_journal": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE records (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      session TEXT NOT NULL,
      turn INTEGER NOT NULL,
      tool TEXT NOT NULL,
      capability TEXT NOT NULL,
      paths TEXT NOT NULL,
      args_hash TEXT NOT NULL,
      request_id TEXT,
      remote INTEGER NOT NULL,
      state TEXT NOT NULL,
      note TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      finalized INTEGER NOT NULL DEFAULT 0,
      resolution TEXT,
      restore_action TEXT,
      restore_session TEXT,
      restore_turn INTEGER,
      sum TEXT NOT NULL,
      state_sum TEXT NOT NULL,
      resolution_sum TEXT
    )`
    yield* sql`CREATE INDEX records_turn ON records (session, turn)`
    yield* sql`CREATE INDEX records_request ON records (session, request_id) WHERE request_id IS NOT NULL`
    yield* sql`CREATE INDEX records_open ON records (finalized) WHERE finalized = 0`
    yield* sql`CREATE INDEX records_restore ON records (restore_session, restore_turn) WHERE restore_action IS NOT NULL`
    yield* sql`CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, content BLOB NOT NULL) WITHOUT ROWID`
    yield* sql`CREATE TABLE snapshots (
      record_seq INTEGER NOT NULL,
      path TEXT NOT NULL,
      before_hash TEXT,
      before_mode INTEGER,
      after_known INTEGER NOT NULL,
      after_hash TEXT,
      after_mode INTEGER,
      PRIMARY KEY (record_seq, path)
    ) WITHOUT ROWID`
  }),
  // Before-images of a few KiB in a WITHOUT ROWID table keyed by their (random) hash made each insert a split of wide
  // cells: 67 of the 146 µs an intent's transaction took (measured on a replica of it: 3000 writes of 2 KiB). A rowid table appends
  // them, and a unique index of the hashes finds them.
  "2_blobs_by_rowid": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE blobs_by_rowid (hash TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, content BLOB NOT NULL)`
    yield* sql`INSERT INTO blobs_by_rowid (hash, size, content) SELECT hash, size, content FROM blobs`
    yield* sql`DROP TABLE blobs`
    yield* sql`ALTER TABLE blobs_by_rowid RENAME TO blobs`
  }),
  // Whether the reply to a record's request was written (`mcp serve` asks the journal after a restart only about
  // calls never answered). Rows from before this column count as answered, and so do rows an older minicode
  // inserts without it: nothing refuses a call for them. `begin` inserts 0.
  "3_answered": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE records ADD COLUMN answered INTEGER NOT NULL DEFAULT 1`
  })
})

const latestMigration = 3

const Capability = Schema.Literal("read", "write", "exec", "network", "external")
const State = Schema.Literal("pending", "committed", "failed", "unknown")
const Flag = Schema.Literal(0, 1)

const RecordRow = Schema.Struct({
  seq: Schema.Number,
  id: Schema.String,
  session: Schema.String,
  turn: Schema.Number,
  tool: Schema.String,
  capability: Capability,
  paths: Schema.parseJson(Schema.Array(Schema.String)),
  args_hash: Schema.String,
  request_id: Schema.NullOr(Schema.String),
  remote: Flag,
  state: State,
  note: Schema.NullOr(Schema.String),
  created_at: Schema.Number,
  updated_at: Schema.Number,
  finalized: Flag,
  answered: Flag,
  resolution: Schema.NullOr(Schema.Literal("applied", "absent")),
  restore_action: Schema.NullOr(Schema.Literal("undo", "redo")),
  restore_session: Schema.NullOr(Schema.String),
  restore_turn: Schema.NullOr(Schema.Number),
  sum: Schema.String,
  state_sum: Schema.String,
  resolution_sum: Schema.NullOr(Schema.String)
})
type RecordRow = typeof RecordRow.Type
const decodeRecordRow = Schema.decodeUnknownEither(RecordRow)

const ChangeRow = Schema.Struct({
  seq: Schema.Number,
  path: Schema.String,
  state: State,
  resolution: Schema.NullOr(Schema.Literal("applied", "absent")),
  before_hash: Schema.NullOr(Schema.String),
  before_mode: Schema.NullOr(Schema.Number),
  after_known: Flag,
  after_hash: Schema.NullOr(Schema.String),
  after_mode: Schema.NullOr(Schema.Number)
})
const decodeChangeRows = Schema.decodeUnknownEither(Schema.Array(ChangeRow))
const BlobRow = Schema.Struct({ content: Schema.Uint8ArrayFromSelf })
const decodeBlobRows = Schema.decodeUnknownEither(Schema.Array(BlobRow))
const TurnRow = Schema.Struct({
  session: Schema.String,
  turn: Schema.Number,
  first_seq: Schema.Number,
  last_seq: Schema.Number,
  created_at: Schema.Number,
  finalized: Flag,
  paths: Schema.String
})
const decodeTurnRows = Schema.decodeUnknownEither(Schema.Array(TurnRow))
const RestoreRow = Schema.Struct({
  restore_session: Schema.String,
  restore_turn: Schema.Number,
  restore_action: Schema.Literal("undo", "redo"),
  state: State
})
const decodeRestoreRows = Schema.decodeUnknownEither(Schema.Array(RestoreRow))
const CheckRow = Schema.Struct({ quick_check: Schema.String })
const decodeCheckRows = Schema.decodeUnknownEither(Schema.Array(CheckRow))
const MigrationRow = Schema.Struct({ latest: Schema.NullOr(Schema.Number) })
const decodeMigrationRows = Schema.decodeUnknownEither(Schema.Array(MigrationRow))
const decodeLastTurnRows = Schema.decodeUnknownEither(Schema.Tuple(Schema.Struct({ turn: Schema.Number })))

// ---------------------------------------------------------------------------------------------------------------
// Checksums: over the immutable fields at insert, over (state, note) and over the resolution as they change.

interface Immutable {
  readonly id: string
  readonly session: string
  readonly turn: number
  readonly tool: string
  readonly capability: string
  readonly paths: ReadonlyArray<string>
  readonly argsHash: string
  readonly requestId: string | null
  readonly remote: boolean
  readonly restores: { readonly action: string; readonly session: string; readonly turn: number } | null
  readonly createdAt: number
}

const immutableSum = (r: Immutable): string =>
  sha256(JSON.stringify([
    r.id,
    r.session,
    r.turn,
    r.tool,
    r.capability,
    r.paths,
    r.argsHash,
    r.requestId,
    r.remote,
    r.restores === null ? null : [r.restores.action, r.restores.session, r.restores.turn],
    r.createdAt
  ]))
const stateSum = (id: string, state: JournalState, note: string | null): string => sha256(JSON.stringify([id, state, note]))
const resolutionSum = (id: string, resolution: string): string => sha256(JSON.stringify([id, resolution]))

const toRecord = (row: RecordRow): JournalRecord => ({
  id: row.id,
  seq: row.seq,
  session: row.session,
  turn: row.turn,
  tool: row.tool,
  capability: row.capability,
  paths: row.paths,
  argsHash: row.args_hash,
  requestId: row.request_id,
  remote: row.remote === 1,
  state: row.state,
  note: row.note,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  finalized: row.finalized === 1,
  answered: row.answered === 1,
  resolution: row.resolution,
  restores: row.restore_action === null || row.restore_session === null || row.restore_turn === null
    ? null
    : { action: row.restore_action, session: row.restore_session, turn: row.restore_turn }
})

/** A decoded row whose checksums do not match: the reason, or null when it is intact. */
const rowDamage = (row: RecordRow): string | null => {
  const record = toRecord(row)
  if (immutableSum(record) !== row.sum) return "record checksum mismatch"
  if (stateSum(row.id, row.state, row.note) !== row.state_sum) return "state checksum mismatch"
  if (row.resolution !== null && (row.resolution_sum === null || resolutionSum(row.id, row.resolution) !== row.resolution_sum)) {
    return "resolution checksum mismatch"
  }
  return null
}

const rawSeq = (raw: unknown): number | null =>
  typeof raw === "object" && raw !== null && "seq" in raw && typeof raw.seq === "number" ? raw.seq : null

// ---------------------------------------------------------------------------------------------------------------
// Files: the directory 700, the database 600 (SQLite gives -wal and -shm the database's mode).

const prepareFiles = (dbPath: string) =>
  Effect.try({
    try: () => {
      const dir = NodePath.dirname(dbPath)
      NodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      NodeFs.chmodSync(dir, 0o700)
      NodeFs.closeSync(NodeFs.openSync(dbPath, NodeFs.constants.O_CREAT | NodeFs.constants.O_RDWR, 0o600))
      NodeFs.chmodSync(dbPath, 0o600)
    },
    catch: (cause) => new JournalError({ reason: `cannot prepare ${dbPath}: ${String(cause)}` })
  })

/** The page size in the database header, or undefined for an empty file or a header that is not SQLite's. */
const pageSizeOf = (dbPath: string): number | undefined => {
  const header = Buffer.alloc(100)
  const fd = NodeFs.openSync(dbPath, "r")
  try {
    if (NodeFs.readSync(fd, header, 0, 100, 0) < 100) return undefined
  } finally {
    NodeFs.closeSync(fd)
  }
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  return pageSize >= 512 && (pageSize & (pageSize - 1)) === 0 ? pageSize : undefined
}

/**
 * A torn write that SQLite itself would silently skip, in the database file: not whole pages. Read before SQLite
 * opens the file (checkpoints write whole pages at page offsets, so another process's cannot show as one).
 */
const tornDatabase = (dbPath: string): ReadonlyArray<string> => {
  try {
    const size = NodeFs.statSync(dbPath).size
    const pageSize = size === 0 ? undefined : pageSizeOf(dbPath)
    return pageSize !== undefined && size % pageSize !== 0 ? [`state.db is ${size} bytes, not whole ${pageSize}-byte pages (torn or truncated)`] : []
  } catch (cause) {
    return [`cannot inspect ${dbPath}: ${String(cause)}`]
  }
}

/**
 * A torn write in the write-ahead log: it ends in part of a frame of its current generation. Read while this
 * connection holds the write lock, before it writes anything: another process appends frames (a header, then the
 * page, in two writes) only under that lock, so a part frame seen without it may be one being written. A part frame
 * of an earlier generation (its salts are not the log header's) is not torn: SQLite cuts a log that outgrew
 * `journal_size_limit` back to that size, wherever a frame ends.
 */
const tornWal = (dbPath: string): ReadonlyArray<string> => {
  try {
    const wal = NodeFs.statSync(`${dbPath}-wal`, { throwIfNoEntry: false })
    const pageSize = wal === undefined || wal.size === 0 ? undefined : pageSizeOf(dbPath)
    if (wal === undefined || pageSize === undefined) return []
    const frame = pageSize + 24
    const part = wal.size < 32 ? wal.size : (wal.size - 32) % frame
    if (part === 0) return []
    const torn = [`the write-ahead log ends in a partial frame (${wal.size} bytes): its last write was torn`]
    if (wal.size < 32 || part < 24) return torn
    const header = Buffer.alloc(32)
    const partial = Buffer.alloc(24)
    const fd = NodeFs.openSync(`${dbPath}-wal`, "r")
    try {
      NodeFs.readSync(fd, header, 0, 32, 0)
      NodeFs.readSync(fd, partial, 0, 24, wal.size - part)
    } finally {
      NodeFs.closeSync(fd)
    }
    // Salt-1 and salt-2: bytes 16-23 of the log header, 8-15 of a frame header.
    return header.subarray(16, 24).equals(partial.subarray(8, 16)) ? torn : []
  } catch (cause) {
    return [`cannot inspect ${dbPath}-wal: ${String(cause)}`]
  }
}

const sqlError = (what: string) => (error: SqlError) =>
  new JournalError({ reason: `${what}: ${error.cause instanceof Error ? error.cause.message : error.message}` })

// ---------------------------------------------------------------------------------------------------------------

/**
 * The per-call statements (an intent before each mutation, its terminal state after) on a second, plain
 * better-sqlite3 connection to the same WAL database: the same SQL the Effect client would send, without its
 * per-statement machinery, which cost more than the write being journaled. Migrations, recovery, undo and
 * listings stay on the Effect client.
 */
interface HotRow {
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
}

interface HotSnapshot {
  readonly path: string
  readonly before_hash: string | null
  readonly before_mode: number | null
  readonly after_known: number
  readonly after_hash: string | null
  readonly after_mode: number | null
}

interface BetterStatement {
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  get(...params: ReadonlyArray<unknown>): unknown
}
interface BetterDatabase {
  prepare(source: string): BetterStatement
  pragma(source: string): unknown
  transaction<A extends ReadonlyArray<unknown>, R>(f: (...args: A) => R): { immediate: (...args: A) => R }
  close(): void
}
type BetterConstructor = new (filename: string, options?: { readonly timeout?: number }) => BetterDatabase

const isConstructor = (value: unknown): value is BetterConstructor => typeof value === "function"

/**
 * Each journaled write appends ~14 pages to the WAL. Copying them into the database (a checkpoint: a few MiB of
 * writes and two fsyncs, ~20 ms here) is done by `idle`, when the caller has nothing running; a write checkpoints
 * in line only once the WAL reaches this many pages (40 MiB), the backstop for a long burst of writes.
 */
const walCheckpointPages = 10_000
/** The WAL file is cut back to this size once a checkpoint let it restart (it keeps its blocks up to here). */
const walKeptBytes = 16 * 1024 * 1024
/**
 * The page cache of each connection. better-sqlite3 builds SQLite with a 16 MiB default; the journal's hot set (the
 * B-trees' upper pages and their newest leaves) is far smaller, and a full cache was 14 MiB of the server's memory.
 */
const cachePages = -1024

const hotPath = (dbPath: string, busyMs: number, full: boolean) =>
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
          state_sum) VALUES (@id, @session, @turn, @tool, @capability, @paths, @args_hash, @request_id, @remote, @state, @note,
          @created_at, @updated_at, @finalized, @answered, @restore_action, @restore_session, @restore_turn, @sum, @state_sum)`)
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

export interface Services {
  readonly journal: JournalShape
  readonly checkpoints: CheckpointsShape
}

export const make = (options: Options): Effect.Effect<Services, JournalError, Scope.Scope> =>
  Effect.gen(function* () {
    const retention = Math.max(1, options.retentionTurns ?? defaultRetentionTurns)
    yield* prepareFiles(options.dbPath)
    const tornFile = tornDatabase(options.dbPath)
    const context = yield* Layer.build(SqliteClient.layer({ filename: options.dbPath })).pipe(
      Effect.catchAllDefect((defect) => Effect.fail(new JournalError({ reason: `cannot open ${options.dbPath}: ${String(defect)}` }))),
      Effect.catchTag("ConfigError", (e) => Effect.fail(new JournalError({ reason: e.message })))
    )
    const sql = Context.get(context, SqliteClient.SqliteClient)
    const busy = options.busyTimeoutMs ?? 5000

    const check = Effect.gen(function* () {
      yield* sql.unsafe(`PRAGMA busy_timeout = ${busy}`)
      yield* sql.unsafe(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`)
      yield* sql.unsafe(`PRAGMA cache_size = ${cachePages}`)
      const rows = decodeCheckRows(yield* sql`PRAGMA quick_check`)
      return Either.match(rows, {
        onLeft: () => ["quick_check returned an unreadable answer"],
        onRight: (rs) => rs.map((r) => r.quick_check).filter((s) => s !== "ok")
      })
    }).pipe(Effect.catchAll((e) => Effect.succeed([`integrity check failed: ${e.message}`])))

    const problems = yield* check
    // Under the write lock, released at once: nothing is written. A lock held by another process past the busy
    // timeout means it is alive and writing, so its log's tail is not a torn one (a later opening checks again).
    const tornLog = yield* sql.unsafe("BEGIN IMMEDIATE").pipe(
      Effect.zipRight(Effect.sync(() => tornWal(options.dbPath))),
      Effect.ensuring(Effect.ignore(sql.unsafe("ROLLBACK"))),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
    const torn = [...tornFile, ...tornLog]
    // Several processes may open a fresh database at once: the migrator's loser skips (`locked`), so wait
    // until the winner's schema is visible.
    const migrate = Migrator.make({})({ loader: migrations }).pipe(
      Effect.provide(context),
      Effect.zipRight(sql`SELECT MAX(migration_id) AS latest FROM effect_sql_migrations`),
      Effect.flatMap((rows) =>
        Either.match(decodeMigrationRows(rows), {
          onLeft: () => Effect.fail(new JournalError({ reason: "unreadable migrations table" })),
          onRight: ([row]) =>
            (row?.latest ?? 0) >= latestMigration
              ? Effect.void
              : Effect.fail(new JournalError({ reason: "schema not migrated yet" }))
        })
      ),
      Effect.mapError((e) => (e._tag === "JournalError" ? e : new JournalError({ reason: `migration: ${e.message}` }))),
      Effect.retry(Schedule.spaced(Duration.millis(20)).pipe(Schedule.compose(Schedule.recurs(250))))
    )
    if (problems.length === 0) yield* migrate
    const damaged = yield* Ref.make<ReadonlyArray<string>>(problems)
    // A damaged database refuses every write (see `writable`): its hot path is never opened.
    const hot =
      problems.length === 0
        ? yield* hotPath(options.dbPath, busy, options.synchronous === "full")
        : { begin: () => -1, complete: () => 0, findByRequest: (): ReadonlyArray<unknown> => [], answered: () => undefined, checkpoint: () => undefined }

    const writable = Effect.flatMap(Ref.get(damaged), (ps) =>
      ps.length === 0
        ? Effect.void
        : Effect.fail(new JournalError({ reason: `the journal database is damaged (${ps.join("; ")}): run \`minicode recover\`` })))

    const selectRecords = (where: ReturnType<typeof sql.and>) => sql`SELECT * FROM records WHERE ${where} ORDER BY seq`

    const decodeRecords = (rows: ReadonlyArray<unknown>) => {
      const records: Array<JournalRecord> = []
      const damage: Array<Recovery.Damage> = []
      for (const raw of rows) {
        const decoded = decodeRecordRow(raw)
        if (Either.isLeft(decoded)) {
          damage.push({ seq: rawSeq(raw), reason: "unreadable record row" })
          continue
        }
        const reason = rowDamage(decoded.right)
        if (reason !== null) damage.push({ seq: decoded.right.seq, reason })
        records.push(toRecord(decoded.right))
      }
      return { records, damage }
    }

    const byId = (id: string) =>
      selectRecords(sql.and([sql`id = ${id}`])).pipe(
        Effect.map((rows) => decodeRecords(rows).records[0]),
        Effect.mapError(sqlError("read"))
      )


    const begin = Effect.fnUntraced(function* (
      intent: Intent,
      snapshots: ReadonlyArray<Snapshot>,
      intended: ReadonlyArray<Snapshot> = []
    ) {
      yield* writable
      const now = yield* Clock.currentTimeMillis
      const id = NodeCrypto.randomUUID()
      const base = {
        id,
        session: intent.session,
        turn: intent.turn,
        tool: intent.tool,
        capability: intent.capability,
        paths: intent.paths,
        argsHash: sha256(intent.canonicalArgs),
        requestId: intent.requestId ?? null,
        remote: intent.remote,
        restores: intent.restores ?? null,
        createdAt: now
      }
      const row = {
        id,
        session: base.session,
        turn: base.turn,
        tool: base.tool,
        capability: base.capability,
        paths: JSON.stringify(base.paths),
        args_hash: base.argsHash,
        request_id: base.requestId,
        remote: base.remote ? 1 : 0,
        state: "pending",
        note: null,
        created_at: now,
        updated_at: now,
        finalized: 0,
        answered: 0,
        restore_action: base.restores?.action ?? null,
        restore_session: base.restores?.session ?? null,
        restore_turn: base.restores?.turn ?? null,
        sum: immutableSum(base),
        state_sum: stateSum(id, "pending", null)
      }
      // One synchronous transaction on the hot-path connection: the record, the content-addressed blobs and the
      // snapshot rows land together or not at all.
      const blobs = new Map<string, Uint8Array>()
      const address = (content: Uint8Array | null): string | null => {
        if (content === null) return null
        const hash = sha256(content)
        blobs.set(hash, content)
        return hash
      }
      const snapshotRows = snapshots.map((snap) => {
        const after = intended.find((i) => i.path === snap.path)
        return {
          path: snap.path,
          before_hash: address(snap.content),
          before_mode: snap.content === null ? null : snap.mode,
          after_known: after === undefined ? 0 : 1,
          after_hash: after === undefined ? null : address(after.content),
          after_mode: after === undefined || after.content === null ? null : after.mode
        }
      })
      const seq = yield* Effect.try({
        try: () => hot.begin(row, [...blobs], snapshotRows),
        catch: (cause) => new JournalError({ reason: `begin: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      const record: JournalRecord = {
        ...base,
        seq,
        state: "pending",
        note: null,
        updatedAt: now,
        finalized: false,
        answered: false,
        resolution: null
      }
      return record
    })

    const complete = Effect.fnUntraced(function* (id: string, state: Terminal, note?: string) {
      yield* writable
      const now = yield* Clock.currentTimeMillis
      const text = note ?? null
      const updated = yield* Effect.try({
        try: () => hot.complete(id, state, text, now, stateSum(id, state, text)),
        catch: (cause) => new JournalError({ reason: `complete: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      if (updated > 0) return
      const existing = yield* byId(id)
      if (existing === undefined) return yield* new JournalError({ reason: `no record ${id}` })
      if (existing.state !== state) {
        return yield* new JournalError({ reason: `record #${existing.seq} is already ${existing.state}` })
      }
    })

    // Keeps the last `retention` turns (by their newest call); an unfinalised turn is never pruned.
    const prune = sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`WITH turns AS (
            SELECT session, turn, MAX(seq) AS last FROM records WHERE restore_action IS NULL GROUP BY session, turn),
          kept AS (SELECT session, turn FROM turns ORDER BY last DESC LIMIT ${retention})
          DELETE FROM records WHERE finalized = 1 AND (
            (restore_action IS NULL AND (session, turn) NOT IN (SELECT session, turn FROM kept))
            OR (restore_action IS NOT NULL AND (restore_session, restore_turn) NOT IN (SELECT session, turn FROM kept)))`
        yield* sql`DELETE FROM snapshots WHERE record_seq NOT IN (SELECT seq FROM records)`
        yield* sql`DELETE FROM blobs WHERE hash NOT IN (
          SELECT before_hash FROM snapshots WHERE before_hash IS NOT NULL
          UNION SELECT after_hash FROM snapshots WHERE after_hash IS NOT NULL)`
      })
    )

    const finalizeTurn = Effect.fn("SqliteJournal.finalizeTurn")(function* (session: string, turn: number) {
      yield* writable
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE records SET finalized = 1, updated_at = ${now}
        WHERE session = ${session} AND turn = ${turn} AND finalized = 0`.pipe(Effect.mapError(sqlError("finalize")))
      yield* prune.pipe(Effect.mapError(sqlError("retention")))
    })

    // On the hot-path connection: `mcp serve` asks this before every mutating call.
    const findByRequest = Effect.fnUntraced(function* (session: string, requestId: string) {
      const rows = yield* Effect.try({
        try: () => hot.findByRequest(session, requestId),
        catch: (cause) => new JournalError({ reason: `read: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      return Option.fromNullable(decodeRecords(rows).records[0])
    })

    const answered = Effect.fnUntraced(function* (session: string, requestId: string) {
      yield* Effect.try({
        try: () => hot.answered(session, requestId),
        catch: (cause) => new JournalError({ reason: `answered: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
    })

    // Asked only when a retry may be one (rare): a scan of the session's rows by the (session, turn) index.
    const lastFinalizedTurn = Effect.fn("SqliteJournal.lastFinalizedTurn")(function* (session: string) {
      const rows = yield* sql`SELECT COALESCE(MAX(turn), 0) AS turn FROM records WHERE session = ${session} AND finalized = 1`.pipe(
        Effect.mapError(sqlError("read"))
      )
      return yield* Either.match(decodeLastTurnRows(rows), {
        onLeft: () => Effect.fail(new JournalError({ reason: "unreadable last finalised turn" })),
        onRight: ([row]) => Effect.succeed(row.turn)
      })
    })

    const list = Effect.fn("SqliteJournal.list")(function* (filter?: {
      readonly turn?: number
      readonly state?: JournalState
      readonly session?: string
    }) {
      const clauses = [
        ...(filter?.turn === undefined ? [] : [sql`turn = ${filter.turn}`]),
        ...(filter?.state === undefined ? [] : [sql`state = ${filter.state}`]),
        ...(filter?.session === undefined ? [] : [sql`session = ${filter.session}`])
      ]
      const rows = yield* selectRecords(sql.and(clauses)).pipe(Effect.mapError(sqlError("read")))
      return decodeRecords(rows).records
    })

    // The (session, turn) index answers it from its last entry.
    const lastTurn = Effect.fn("SqliteJournal.lastTurn")(function* (session: string) {
      const rows = yield* sql`SELECT COALESCE(MAX(turn), 0) AS turn FROM records WHERE session = ${session}`.pipe(Effect.mapError(sqlError("read")))
      return yield* Either.match(decodeLastTurnRows(rows), {
        onLeft: () => Effect.fail(new JournalError({ reason: "unreadable last turn" })),
        onRight: ([row]) => Effect.succeed(row.turn)
      })
    })

    const recover = Effect.gen(function* () {
      const problems = yield* Ref.get(damaged)
      const dbDamage = problems.map((reason): Recovery.Damage => ({ seq: null, reason: `database: ${reason}` }))
      const read = yield* selectRecords(sql.and([sql`finalized = 0`])).pipe(Effect.either)
      if (Either.isLeft(read)) {
        return Recovery.plan([], [...dbDamage, { seq: null, reason: `cannot read the records: ${read.left.message}` }])
      }
      const { damage, records } = decodeRecords(read.right)
      return Recovery.plan(records, [...dbDamage, ...damage])
    }).pipe(Effect.withSpan("SqliteJournal.recover"))

    const resolve = Effect.fn("SqliteJournal.resolve")(function* (seq: number, outcome: Recovery.Resolution, by?: string) {
      yield* writable
      const rows = yield* selectRecords(sql.and([sql`seq = ${seq}`])).pipe(Effect.mapError(sqlError("read")))
      const { damage, records } = decodeRecords(rows)
      const target = records[0]
      const refused = Recovery.refuseResolve(seq, target, damage.length > 0)
      if (refused !== undefined || target === undefined) return yield* new JournalError({ reason: refused ?? `no readable record #${seq}` })
      const record = yield* begin(Recovery.resolveIntent(seq, target, outcome), [])
      const now = yield* Clock.currentTimeMillis
      const note = Recovery.resolveNote(seq, outcome, by)
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`UPDATE records SET resolution = ${outcome}, resolution_sum = ${resolutionSum(target.id, outcome)},
            updated_at = ${now} WHERE seq = ${seq}`
          yield* sql`UPDATE records SET state = 'committed', note = ${note}, finalized = 1, updated_at = ${now},
            state_sum = ${stateSum(record.id, "committed", note)} WHERE id = ${record.id}`
        })
      ).pipe(Effect.mapError(sqlError("resolve")))
      return { ...record, state: "committed" as const, note, finalized: true, updatedAt: now }
    })

    if (problems.length === 0) {
      for (const reason of torn) {
        yield* begin({
          session: "minicode",
          turn: 0,
          tool: Recovery.integrityTool,
          capability: "write",
          paths: [],
          canonicalArgs: JSON.stringify({ reason }),
          remote: false
        }, []).pipe(Effect.flatMap((r) => complete(r.id, "unknown", reason)))
      }
    } else {
      yield* Ref.update(damaged, (ps) => [...ps, ...torn])
    }

    // A checkpoint that fails (the disk is full, another process holds the database) is left to the next one, or
    // to the inline backstop: housekeeping never fails a caller.
    const idle = Effect.ignore(Effect.try(() => hot.checkpoint()))

    const journal = Journal.of({ begin, complete, finalizeTurn, findByRequest, answered, lastFinalizedTurn, lastTurn, list, recover, resolve, idle })

    // -------------------------------------------------------------------------------------------------------
    // Checkpoints

    const checkpointList = Effect.gen(function* () {
      const turns = yield* sql`SELECT r.session AS session, r.turn AS turn, MIN(r.seq) AS first_seq, MAX(r.seq) AS last_seq,
          MIN(r.created_at) AS created_at, MIN(r.finalized) AS finalized, json_group_array(DISTINCT s.path) AS paths
        FROM records r JOIN snapshots s ON s.record_seq = r.seq
        WHERE r.restore_action IS NULL GROUP BY r.session, r.turn ORDER BY last_seq DESC`
      const restores = yield* sql`SELECT restore_session, restore_turn, restore_action, state FROM records
        WHERE restore_action IS NOT NULL ORDER BY seq`
      const decodedTurns = decodeTurnRows(turns)
      const decodedRestores = decodeRestoreRows(restores)
      if (Either.isLeft(decodedTurns) || Either.isLeft(decodedRestores)) {
        return yield* new JournalError({ reason: "unreadable checkpoint rows" })
      }
      const status = new Map<string, CheckpointStatus>()
      for (const r of decodedRestores.right) {
        const key = JSON.stringify([r.restore_session, r.restore_turn])
        status.set(
          key,
          r.state === "committed" ? (r.restore_action === "undo" ? "undone" : "applied") : r.restore_action === "undo" ? "undoing" : "redoing"
        )
      }
      const paths = Schema.decodeUnknownEither(Schema.parseJson(Schema.Array(Schema.String)))
      return decodedTurns.right.map((t): Checkpoint => ({
        session: t.session,
        turn: t.turn,
        firstSeq: t.first_seq,
        lastSeq: t.last_seq,
        createdAt: t.created_at,
        finalized: t.finalized === 1,
        paths: Either.getOrElse(paths(t.paths), () => []),
        status: status.get(JSON.stringify([t.session, t.turn])) ?? "applied"
      }))
    }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(sqlError("checkpoints")(e))), Effect.withSpan("SqliteJournal.checkpoints"))

    const changes = Effect.fn("SqliteJournal.changes")(function* (session: string, turn: number) {
      const rows = yield* sql`SELECT r.seq AS seq, s.path AS path, r.state AS state, r.resolution AS resolution,
          s.before_hash, s.before_mode, s.after_known, s.after_hash, s.after_mode
        FROM snapshots s JOIN records r ON r.seq = s.record_seq
        WHERE r.session = ${session} AND r.turn = ${turn} AND r.restore_action IS NULL ORDER BY r.seq, s.path`.pipe(
        Effect.mapError(sqlError("changes"))
      )
      const decoded = decodeChangeRows(rows)
      if (Either.isLeft(decoded)) return yield* new JournalError({ reason: "unreadable snapshot rows" })
      return decoded.right.map((r): PathChange => {
        const before: FileState = { hash: r.before_hash, mode: r.before_mode }
        return {
          seq: r.seq,
          path: r.path,
          state: r.resolution === "applied" ? "committed" : r.resolution === "absent" ? "failed" : r.state,
          before,
          after: r.after_known === 1 ? { hash: r.after_hash, mode: r.after_mode } : null
        }
      })
    })

    const blob = Effect.fn("SqliteJournal.blob")(function* (hash: string) {
      const rows = yield* sql`SELECT content FROM blobs WHERE hash = ${hash}`.pipe(Effect.mapError(sqlError("blob")))
      const decoded = decodeBlobRows(rows)
      if (Either.isLeft(decoded)) return yield* new JournalError({ reason: `unreadable blob ${hash}` })
      const row = decoded.right[0]
      if (row === undefined) return Option.none()
      if (sha256(row.content) !== hash) return yield* new JournalError({ reason: `blob ${hash} is damaged` })
      return Option.some(row.content)
    })

    const checkpoints = Checkpoints.of({ list: checkpointList, changes, blob, address: sha256 })
    return { journal, checkpoints }
  })

/** Journal and Checkpoints over the database at `dbPath`; closed with the layer's scope. */
export const layer = (options: Options): Layer.Layer<Journal | Checkpoints, JournalError> =>
  Layer.scopedContext(
    Effect.map(make(options), ({ checkpoints, journal }) =>
      Context.make(Journal, journal).pipe(Context.add(Checkpoints, checkpoints)))
  )

/**
 * The start-up recovery API: the plan for the workspace's database, even when it cannot be opened (then the
 * plan holds one `ambiguous` item saying why). Never fails, never acts.
 */
export const recoverAt = (options: Options): Effect.Effect<Recovery.RecoveryPlan> =>
  Effect.scoped(
    Effect.flatMap(make(options), ({ journal }) => journal.recover)
  ).pipe(
    Effect.catchTag("JournalError", (e) => Effect.succeed(Recovery.plan([], [{ seq: null, reason: e.reason }])))
  )
