/**
 * The journal in one SQLite database per workspace (`.minicode/state.db`), shared by every process that works
 * there (a CLI call beside a running `mcp serve`): WAL, a busy timeout, schema by @effect/sql's migrator.
 *
 * Every write transaction starts with a write statement, so a process waiting for another's lock goes through
 * SQLite's busy handler instead of failing with SQLITE_BUSY. Rows carry sha256 checksums; a row or a database
 * that fails its check is reported by `recover` as ambiguous, and a damaged database refuses new intents.
 *
 * Two connections, one adapter: the Effect SqliteClient (migrations, recovery, undo, listings) and a plain
 * better-sqlite3 connection for the two statements of every journaled call (SqliteJournalHotPath.ts says why).
 * Both open in this scoped `make` and close with it; nothing outside the Journal port sees either.
 * Files: SqliteJournalSchema.ts (migrations, rows, checksums), SqliteJournalFiles.ts (modes, torn-file checks).
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as NodeCrypto from "node:crypto"
import * as NodePath from "node:path"
import * as StateDir from "../fs/StateDir.js"
import { Clock, Context, Duration, Effect, Either, ExecutionStrategy, Exit, Layer, Option, Ref, Schedule, Schema, Scope } from "effect"
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
export const dbPathFor = StateDir.journalFile


import * as TempFiles from "../fs/TempFiles.js"
import { fileIdentity, isBusy, isFull, keepReserve, prepareFiles, releaseReserve, replacedSince, sqlError, tornDatabase, tornWal } from "./SqliteJournalFiles.js"
import { cachePages, hotPath } from "./SqliteJournalHotPath.js"
import * as WriterIdentity from "./WriterIdentity.js"
import {
  decodeBlobRows,
  decodeChangeRows,
  decodeCheckRows,
  decodeLastTurnRows,
  decodeMigrationRows,
  decodeRecordRow,
  decodeRestoreRows,
  decodeTurnRows,
  immutableSum,
  latestMigration,
  migrations,
  rawSeq,
  resolutionSum,
  rowDamage,
  stateSum,
  toRecord
} from "./SqliteJournalSchema.js"


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
    }).pipe(
      // Another process's lock held past the busy timeout says nothing about the file: the open fails (and is
      // tried again, see `open`); kept as damage, it refused every write of the process for good.
      Effect.catchAll((e) =>
        isBusy(e.message)
          ? Effect.fail(new JournalError({ reason: `cannot open ${options.dbPath}: ${e.message}` }))
          : Effect.succeed([`integrity check failed: ${e.message}`])
      )
    )

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

    // The file both connections opened, checked before every write as SQLite checks it in rollback mode (a WAL
    // connection does not): a state.db deleted or replaced since would take the write into the old file, which no
    // other process (`minicode journal`, `undo`, `recover`) ever reads again.
    const opened = yield* fileIdentity(options.dbPath)
    const sameFile = Effect.suspend(() => {
      const reason = replacedSince(options.dbPath, opened)
      return reason === undefined ? Effect.void : Effect.fail(new JournalError({ reason }))
    })
    yield* sameFile

    const writable = Effect.zipRight(
      Effect.flatMap(Ref.get(damaged), (ps) =>
        ps.length === 0
          ? Effect.void
          : Effect.fail(new JournalError({ reason: `the journal database is damaged (${ps.join("; ")}): run \`minicode recover\`` }))),
      sameFile
    )

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
      const writer = WriterIdentity.self()
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
        createdAt: now,
        ...(intent.summary === undefined ? {} : { summary: intent.summary }),
        ...(writer === null ? {} : { writer })
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
        state_sum: stateSum(id, "pending", null),
        summary: intent.summary ?? null,
        writer
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
      const update = Effect.try({
        try: () => hot.complete(id, state, text, now, stateSum(id, state, text)),
        catch: (cause) => new JournalError({ reason: `complete: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      // On a full disk the outcome is recorded in the reserve's room (a call that failed for lack of space, say).
      const updated = yield* update.pipe(
        Effect.catchAll((e) => (isFull(e.reason) && releaseReserve(options.dbPath) ? update : Effect.fail(e)))
      )
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
      yield* sameFile
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
        WHERE restore_action IS NOT NULL AND tool IN ('undo', 'redo') ORDER BY seq` // a run's own record (Undo.isRun)
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

/**
 * `make`, tried again while another process holds the database's lock past the busy timeout (two servers opening a
 * fresh workspace at once, a long `VACUUM`, a reader's `BEGIN EXCLUSIVE`): each try in a scope of its own, closed
 * when it fails, so a failed try leaves no connection open. Up to 4 tries (each waits up to the busy timeout).
 */
export const open = (options: Options): Effect.Effect<Services, JournalError, Scope.Scope> =>
  Effect.gen(function* () {
    const parent = yield* Effect.scope
    const child = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    return yield* make(options).pipe(
      Scope.extend(child),
      Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(child, exit) : Effect.void))
    )
  }).pipe(
    Effect.retry({
      // Busy: another process's lock. Full: the disk, once, after giving the reserve's room back.
      while: (e) => isBusy(e.reason) || (isFull(e.reason) && releaseReserve(options.dbPath)),
      schedule: Schedule.exponential(Duration.millis(50)).pipe(Schedule.compose(Schedule.recurs(3)))
    }),
    Effect.tap(({ journal }) =>
      Effect.gen(function* () {
        keepReserve(options.dbPath)
        // Temporary files that writes killed mid-way left beside their paths (the calls still pending or unknown).
        const open = [...(yield* journal.list({ state: "pending" })), ...(yield* journal.list({ state: "unknown" }))]
        TempFiles.sweep(NodePath.dirname(NodePath.dirname(options.dbPath)), open.flatMap((r) => r.paths))
      }).pipe(Effect.ignore)
    )
  )

/** Journal and Checkpoints over the database at `dbPath`; closed with the layer's scope. */
export const layer = (options: Options): Layer.Layer<Journal | Checkpoints, JournalError> =>
  Layer.scopedContext(
    Effect.map(open(options), ({ checkpoints, journal }) =>
      Context.make(Journal, journal).pipe(Context.add(Checkpoints, checkpoints)))
  )

/**
 * The start-up recovery API: the plan for the workspace's database, even when it cannot be opened (then the
 * plan holds one `ambiguous` item saying why). Never fails, never acts.
 */
export const recoverAt = (options: Options): Effect.Effect<Recovery.RecoveryPlan> =>
  Effect.scoped(
    Effect.flatMap(open(options), ({ journal }) => journal.recover)
  ).pipe(
    Effect.catchTag("JournalError", (e) => Effect.succeed(Recovery.plan([], [{ seq: null, reason: e.reason }])))
  )
