/** The journal database's schema (migrations), its row schemas and the checksums every row carries. */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { sha256 } from "../crypto/Sha256.js"
import { type JournalRecord, type JournalState } from "../../ports/Journal.js"

// ---------------------------------------------------------------------------------------------------------------
// Schema

export const migrations = Migrator.fromRecord({
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
  }),
  // What a call did in words (bash: its command, redacted), for `minicode journal`; null for older rows.
  "4_summary": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE records ADD COLUMN summary TEXT`
  }),
  // Which process wrote the record (`PID:STARTTICKS`, see WriterIdentity), so recover tells a call still running in a
  // live process from a killed one; null for older rows and where it cannot be known.
  "5_writer": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE records ADD COLUMN writer TEXT`
  })
})

export const latestMigration = 5

export const Capability = Schema.Literal("read", "write", "exec", "network", "external")
export const State = Schema.Literal("pending", "committed", "failed", "unknown")
export const Flag = Schema.Literal(0, 1)

export const RecordRow = Schema.Struct({
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
  resolution_sum: Schema.NullOr(Schema.String),
  summary: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  writer: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export type RecordRow = typeof RecordRow.Type
export const decodeRecordRow = Schema.decodeUnknownEither(RecordRow)

export const ChangeRow = Schema.Struct({
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
export const decodeChangeRows = Schema.decodeUnknownEither(Schema.Array(ChangeRow))
export const BlobRow = Schema.Struct({ content: Schema.Uint8ArrayFromSelf })
export const decodeBlobRows = Schema.decodeUnknownEither(Schema.Array(BlobRow))
export const TurnRow = Schema.Struct({
  session: Schema.String,
  turn: Schema.Number,
  first_seq: Schema.Number,
  last_seq: Schema.Number,
  created_at: Schema.Number,
  finalized: Flag,
  paths: Schema.String
})
export const decodeTurnRows = Schema.decodeUnknownEither(Schema.Array(TurnRow))
export const RestoreRow = Schema.Struct({
  restore_session: Schema.String,
  restore_turn: Schema.Number,
  restore_action: Schema.Literal("undo", "redo"),
  state: State
})
export const decodeRestoreRows = Schema.decodeUnknownEither(Schema.Array(RestoreRow))
export const CheckRow = Schema.Struct({ quick_check: Schema.String })
export const decodeCheckRows = Schema.decodeUnknownEither(Schema.Array(CheckRow))
export const MigrationRow = Schema.Struct({ latest: Schema.NullOr(Schema.Number) })
export const decodeMigrationRows = Schema.decodeUnknownEither(Schema.Array(MigrationRow))
export const decodeLastTurnRows = Schema.decodeUnknownEither(Schema.Tuple(Schema.Struct({ turn: Schema.Number })))

// ---------------------------------------------------------------------------------------------------------------
// Checksums: over the immutable fields at insert, over (state, note) and over the resolution as they change.

export interface Immutable {
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
  readonly summary?: string | undefined
  readonly writer?: string | undefined
}

/** The summary joins the checksum only when there is one, so rows from before it keep theirs. */
export const immutableSum = (r: Immutable): string =>
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
    r.createdAt,
    ...(r.summary === undefined ? [] : [r.summary]),
    ...(r.writer === undefined ? [] : [["writer", r.writer]])
  ]))
export const stateSum = (id: string, state: JournalState, note: string | null): string => sha256(JSON.stringify([id, state, note]))
export const resolutionSum = (id: string, resolution: string): string => sha256(JSON.stringify([id, resolution]))

export const toRecord = (row: RecordRow): JournalRecord => ({
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
    : { action: row.restore_action, session: row.restore_session, turn: row.restore_turn },
  ...(row.summary === null ? {} : { summary: row.summary }),
  ...(row.writer === null ? {} : { writer: row.writer })
})

/** A decoded row whose checksums do not match: the reason, or null when it is intact. */
export const rowDamage = (row: RecordRow): string | null => {
  const record = toRecord(row)
  if (immutableSum(record) !== row.sum) return "record checksum mismatch"
  if (stateSum(row.id, row.state, row.note) !== row.state_sum) return "state checksum mismatch"
  if (row.resolution !== null && (row.resolution_sum === null || resolutionSum(row.id, row.resolution) !== row.resolution_sum)) {
    return "resolution checksum mismatch"
  }
  return null
}

export const rawSeq = (raw: unknown): number | null =>
  typeof raw === "object" && raw !== null && "seq" in raw && typeof raw.seq === "number" ? raw.seq : null

