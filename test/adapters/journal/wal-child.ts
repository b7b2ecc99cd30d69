/**
 * Another process writing the journal's database with SQLite directly, for the torn-log tests (a test harness):
 *
 *   outgrow <dbPath>   writes past journal_size_limit, checkpoints, writes once more (SQLite then cuts the log back
 *                      to the limit, mid-frame), and dies by SIGKILL so the log stays as it is
 *   append <dbPath>    takes the write lock, appends half a frame of the log's current generation (a write under
 *                      way), says "locked", and after 500 ms takes the half frame back and releases the lock
 */
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"

const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => {
  pragma: (s: string) => unknown
  exec: (s: string) => void
  prepare: (s: string) => { run: (...args: Array<unknown>) => unknown }
}
const [mode = "", dbPath = ""] = process.argv.slice(2)
const db = new Database(dbPath)
db.pragma("journal_mode = WAL")
db.exec("CREATE TABLE IF NOT EXISTS other (x BLOB)")
const insert = db.prepare("INSERT INTO other VALUES (?)")

if (mode === "outgrow") {
  db.pragma("wal_autocheckpoint = 10000")
  db.pragma("journal_size_limit = 16777216")
  for (let i = 0; i < 6000; i++) insert.run(Buffer.alloc(3000, i % 251))
  db.pragma("wal_checkpoint(PASSIVE)")
  insert.run(Buffer.alloc(3000, 7))
  process.kill(process.pid, "SIGKILL")
} else if (mode === "append") {
  insert.run(Buffer.alloc(100, 1))
  db.exec("BEGIN IMMEDIATE")
  const wal = `${dbPath}-wal`
  const size = NodeFs.statSync(wal).size
  const header = Buffer.alloc(32)
  const fd = NodeFs.openSync(wal, "r+")
  NodeFs.readSync(fd, header, 0, 32, 0)
  const frame = Buffer.alloc(124, 2)
  header.copy(frame, 8, 16, 24)
  NodeFs.writeSync(fd, frame, 0, frame.length, size)
  process.stdout.write("locked\n")
  setTimeout(() => {
    NodeFs.ftruncateSync(fd, size)
    NodeFs.closeSync(fd)
    db.exec("ROLLBACK")
    process.exit(0)
  }, 500)
}
