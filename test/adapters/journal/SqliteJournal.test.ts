import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Option } from "effect"
import * as SqliteJournal from "../../../src/adapters/journal/SqliteJournal.js"
import { Checkpoints } from "../../../src/ports/Checkpoints.js"
import { Journal } from "../../../src/ports/Journal.js"
import { journalContract } from "../../contracts/Journal.contract.js"
import { tempDir } from "../../support/Workspace.js"

journalContract("SqliteJournal", (options) =>
  SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(tempDir()), ...options }))

const secret = "sk-live-SECRET-4242"

describe("SqliteJournal", () => {
  it.live("creates .minicode 700 and state.db 600, and never stores raw arguments", () => {
    const root = tempDir()
    const dbPath = SqliteJournal.dbPathFor(root)
    return Effect.gen(function* () {
      const journal = yield* Journal
      const r = yield* journal.begin({
        session: "s", turn: 1, tool: "bash", capability: "exec", paths: [],
        canonicalArgs: JSON.stringify({ command: `curl -H ${secret}` }), remote: false
      }, [])
      yield* journal.complete(r.id, "committed")
    }).pipe(
      Effect.provide(SqliteJournal.layer({ dbPath })),
      Effect.andThen(() => {
        assert.strictEqual(NodeFs.statSync(NodePath.dirname(dbPath)).mode & 0o777, 0o700)
        for (const file of NodeFs.readdirSync(NodePath.dirname(dbPath))) {
          const full = NodePath.join(NodePath.dirname(dbPath), file)
          assert.strictEqual(NodeFs.statSync(full).mode & 0o777, 0o600, file)
          assert.notInclude(NodeFs.readFileSync(full).toString("latin1"), secret)
        }
      })
    )
  })

  it.live("idle copies the write-ahead log into the database file; writes before it leave that file as it was", () => {
    const root = tempDir()
    const dbPath = SqliteJournal.dbPathFor(root)
    // What a reader of the database file alone (without its WAL) finds: the records checkpointed so far.
    const checkpointedRecords = () => {
      const copy = NodePath.join(tempDir(), "copy.db")
      NodeFs.copyFileSync(dbPath, copy)
      return Effect.gen(function* () {
        const sql = yield* SqliteClient.SqliteClient
        // Before any checkpoint, even the schema is only in the WAL.
        const tables = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'records'`
        if (tables[0]?.n !== 1) return 0
        const rows = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM records`
        return rows[0]?.n ?? -1
      }).pipe(Effect.provide(SqliteClient.layer({ filename: copy })))
    }
    const content = new TextEncoder().encode("x".repeat(2000))
    return Effect.gen(function* () {
      const journal = yield* Journal
      for (let i = 0; i < 40; i++) {
        const r = yield* journal.begin(
          { session: "s", turn: 1, tool: "write_file", capability: "write", paths: [`f${i}`], canonicalArgs: `{"i":${i}}`, remote: false },
          [{ path: `f${i}`, content, mode: 0o644 }]
        )
        yield* journal.complete(r.id, "committed")
      }
      assert.strictEqual(yield* checkpointedRecords(), 0)
      yield* journal.idle
      assert.strictEqual(yield* checkpointedRecords(), 40)
      assert.strictEqual((yield* journal.list({ session: "s" })).length, 40)
    }).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
  })

  it.live("a journal of the first schema is migrated: its before-images move to a rowid table, unchanged", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    NodeFs.mkdirSync(NodePath.dirname(dbPath), { recursive: true, mode: 0o700 })
    const content = new TextEncoder().encode("before\n".repeat(400))
    const hash = createHash("sha256").update(content).digest("hex")
    // The first schema's blobs table and its migration record, as a journal made before the change has them.
    const firstSchema = Effect.gen(function* () {
      const sql = yield* SqliteClient.SqliteClient
      yield* sql`CREATE TABLE effect_sql_migrations (migration_id integer PRIMARY KEY NOT NULL,
        created_at datetime NOT NULL DEFAULT current_timestamp, name VARCHAR(255) NOT NULL)`
      yield* sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (1, 'journal')`
      yield* sql`CREATE TABLE records (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, session TEXT NOT NULL,
        turn INTEGER NOT NULL, tool TEXT NOT NULL, capability TEXT NOT NULL, paths TEXT NOT NULL, args_hash TEXT NOT NULL,
        request_id TEXT, remote INTEGER NOT NULL, state TEXT NOT NULL, note TEXT, created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL, finalized INTEGER NOT NULL DEFAULT 0, resolution TEXT, restore_action TEXT,
        restore_session TEXT, restore_turn INTEGER, sum TEXT NOT NULL, state_sum TEXT NOT NULL, resolution_sum TEXT)`
      yield* sql`CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, content BLOB NOT NULL) WITHOUT ROWID`
      yield* sql`CREATE TABLE snapshots (record_seq INTEGER NOT NULL, path TEXT NOT NULL, before_hash TEXT, before_mode INTEGER,
        after_known INTEGER NOT NULL, after_hash TEXT, after_mode INTEGER, PRIMARY KEY (record_seq, path)) WITHOUT ROWID`
      yield* sql`INSERT INTO blobs (hash, size, content) VALUES (${hash}, ${content.byteLength}, ${content})`
    }).pipe(Effect.provide(SqliteClient.layer({ filename: dbPath })))
    const blobsTable = Effect.gen(function* () {
      const sql = yield* SqliteClient.SqliteClient
      const rows = yield* sql<{ readonly sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'blobs'`
      return rows[0]?.sql ?? ""
    }).pipe(Effect.provide(SqliteClient.layer({ filename: dbPath })))
    return Effect.gen(function* () {
      yield* firstSchema
      assert.include(yield* blobsTable, "WITHOUT ROWID")
      const kept = yield* Effect.flatMap(Checkpoints, (c) => c.blob(hash)).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      assert.isTrue(Option.isSome(kept) && Buffer.from(kept.value).equals(Buffer.from(content)))
      assert.notInclude(yield* blobsTable, "WITHOUT ROWID")
    })
  })

  it.live("persists across openings", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    const layer = SqliteJournal.layer({ dbPath })
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) =>
        j.begin({ session: "s", turn: 1, tool: "write_file", capability: "write", paths: ["x"], canonicalArgs: "{}", remote: false }, [])
      ).pipe(Effect.provide(layer))
      const plan = yield* SqliteJournal.recoverAt({ dbPath })
      assert.deepStrictEqual(plan.items.map((i) => [i.classification, i.paths]), [["verify", ["x"]]])
    })
  })

  it.live("a tampered row is ambiguous, never done", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) =>
        Effect.flatMap(
          j.begin({ session: "s", turn: 1, tool: "write_file", capability: "write", paths: ["x"], canonicalArgs: "{}", remote: false }, []),
          (r) => j.complete(r.id, "failed")
        )
      ).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      // Flip the state behind the journal's back: the state checksum no longer matches.
      yield* Effect.flatMap(SqliteClient.SqliteClient, (sql) => sql`UPDATE records SET state = 'committed'`).pipe(
        Effect.provide(SqliteClient.layer({ filename: dbPath })),
        Effect.orDie
      )
      const plan = yield* SqliteJournal.recoverAt({ dbPath })
      assert.deepStrictEqual(plan.items.map((i) => [i.seq, i.classification]), [[1, "ambiguous"]])
      assert.isFalse(plan.clean)
    })
  })

  it.live("a damaged database is reported as ambiguous and refuses new intents", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) =>
        j.begin({ session: "s", turn: 1, tool: "write_file", capability: "write", paths: ["x"], canonicalArgs: "{}", remote: false }, [])
      ).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      // Overwrite the header and a page: the torn/damaged file of a crash mid-write.
      const fd = NodeFs.openSync(dbPath, "r+")
      NodeFs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 0)
      NodeFs.closeSync(fd)
      const plan = yield* SqliteJournal.recoverAt({ dbPath })
      assert.isFalse(plan.clean)
      assert.strictEqual(plan.items[0]?.classification, "ambiguous")
      const refused = yield* Effect.flatMap(Journal, (j) =>
        j.begin({ session: "s", turn: 2, tool: "write_file", capability: "write", paths: ["x"], canonicalArgs: "{}", remote: false }, [])
      ).pipe(Effect.provide(SqliteJournal.layer({ dbPath })), Effect.flip)
      assert.strictEqual(refused._tag, "JournalError")
    })
  })

  it.live("a truncated database (torn last write) is never reported clean", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) =>
        Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8], (turn) =>
          j.begin({ session: "s", turn, tool: "write_file", capability: "write", paths: ["x"], canonicalArgs: "{}", remote: false },
            [{ path: "x", content: new Uint8Array(3000).fill(turn), mode: 0o644 }]))
      ).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      const size = NodeFs.statSync(dbPath).size
      NodeFs.truncateSync(dbPath, size - 1500)
      const plan = yield* SqliteJournal.recoverAt({ dbPath })
      assert.isFalse(plan.clean)
      assert.isTrue(plan.items.some((i) => i.classification === "ambiguous"))
    })
  })

  const walChild = (mode: "outgrow" | "append", dbPath: string) =>
    spawn(process.execPath, ["--import", "tsx", NodePath.join(import.meta.dirname, "wal-child.ts"), mode, dbPath], { stdio: ["ignore", "pipe", "inherit"] })
  const exited = (child: ReturnType<typeof walChild>) => Effect.async<void>((resume) => void child.on("close", () => resume(Effect.void)))

  it.live("a log SQLite cut back to journal_size_limit (mid-frame, after a crash) is not a torn write", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) => j.list()).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      yield* exited(walChild("outgrow", dbPath))
      // The log is cut at the limit, which is not where a frame ends: the tail is half of an older generation's frame.
      const size = NodeFs.statSync(`${dbPath}-wal`).size
      assert.strictEqual(size, 16 * 1024 * 1024)
      assert.notStrictEqual((size - 32) % (4096 + 24), 0)
      assert.isTrue((yield* SqliteJournal.recoverAt({ dbPath })).clean)
    })
  }, 60_000)

  it.live("half a frame another process is writing under the lock is not a torn write: the check waits for the lock", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    return Effect.gen(function* () {
      yield* Effect.flatMap(Journal, (j) => j.list()).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
      const child = walChild("append", dbPath)
      yield* Effect.async<void>((resume) => void child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resume(Effect.void)))
      // Half a frame of the current generation is there now, as when a write is under way.
      assert.notStrictEqual((NodeFs.statSync(`${dbPath}-wal`).size - 32) % (4096 + 24), 0)
      assert.isTrue((yield* SqliteJournal.recoverAt({ dbPath })).clean)
      yield* exited(child)
    })
  }, 60_000)

  it.live("a write-ahead log ending in half a frame is journaled as an ambiguity until resolved", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    const open = <A, E>(f: (j: typeof Journal.Service) => Effect.Effect<A, E>) =>
      Effect.flatMap(Journal, f).pipe(Effect.provide(SqliteJournal.layer({ dbPath })))
    return Effect.gen(function* () {
      yield* open((j) => j.list())
      NodeFs.writeFileSync(`${dbPath}-wal`, Buffer.alloc(100, 1), { mode: 0o600 })
      const plan = yield* open((j) => j.recover)
      assert.deepStrictEqual(plan.items.map((i) => i.classification), ["ambiguous"])
      assert.include(plan.items[0]?.advice ?? "", "partial frame")
      // Still reported at the next opening, until a human resolves it.
      const seq = (yield* SqliteJournal.recoverAt({ dbPath })).items[0]?.seq ?? -1
      yield* open((j) => j.resolve(seq, "applied", "test"))
      assert.isTrue((yield* SqliteJournal.recoverAt({ dbPath })).clean)
    })
  })

  it.live("records from before the answered column count as answered (no call is refused for them); new ones start unanswered", () => {
    const dbPath = SqliteJournal.dbPathFor(tempDir())
    const intent = (requestId: string) => ({
      session: "mcp-server", turn: 1, tool: "bash", capability: "exec" as const, paths: [],
      canonicalArgs: JSON.stringify({ command: "echo x >> f" }), requestId, remote: false
    })
    const open = <A, E>(effect: Effect.Effect<A, E, Journal>) => Effect.provide(effect, SqliteJournal.layer({ dbPath }))
    return Effect.gen(function* () {
      yield* open(Effect.flatMap(Journal, (j) => j.begin(intent("old"), [])))
      // Back to the schema of migration 2, as a database an older minicode wrote, with that row in it.
      yield* Effect.gen(function* () {
        const sql = yield* SqliteClient.SqliteClient
        yield* sql`ALTER TABLE records DROP COLUMN answered`
        yield* sql`ALTER TABLE records DROP COLUMN summary`
        yield* sql`ALTER TABLE records DROP COLUMN writer`
        yield* sql`DELETE FROM effect_sql_migrations WHERE migration_id >= 3`
        yield* sql`INSERT INTO records (id, session, turn, tool, capability, paths, args_hash, request_id, remote, state,
          created_at, updated_at, sum, state_sum) SELECT 'older', session, turn, tool, capability, paths, args_hash, 'older',
          remote, state, created_at, updated_at, sum, state_sum FROM records`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: dbPath })))
      const { fresh, old, older } = yield* open(Effect.gen(function* () {
        const j = yield* Journal
        const fresh = yield* j.begin(intent("new"), [])
        return {
          old: Option.getOrThrow(yield* j.findByRequest("mcp-server", "old")),
          older: Option.getOrThrow(yield* j.findByRequest("mcp-server", "older")),
          fresh: Option.getOrThrow(yield* j.findByRequest("mcp-server", fresh.requestId ?? ""))
        }
      }))
      assert.deepStrictEqual([old.answered, older.answered, fresh.answered], [true, true, false])
    })
  })
})
