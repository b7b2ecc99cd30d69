/**
 * The program an SQLite query process runs (plain CommonJS, given to `node -e`, so it needs no file of its own in
 * src/ or dist/). SQLite runs in a process of its own because nothing else can stop it: better-sqlite3 offers no
 * sqlite3_interrupt, and a worker thread's terminate() cannot end a statement busy inside SQLite's C code (the
 * thread keeps spinning and terminate() never resolves). A process ends with SIGKILL whatever it is doing.
 *
 * Protocol over the IPC channel (advanced serialisation: bigints and byte arrays survive):
 *   child → parent  { ready: true } | { ready: false, reason }                   once, at start
 *   parent → child  { file, expect?, write, statements: [{ sql, rule, reports }], params, maxRows, deadline }
 *   child → parent  { ok: true, results } | { ok: false, kind, rule, reason }    one per request
 *
 * The engine's read-only rules run here exactly as they did in-process: SQLITE_OPEN_READONLY, `query_only`,
 * `trusted_schema = OFF`, `Statement.readonly` per statement, and the leading-keyword rule (`rule`, computed by the
 * parent from the same lexer, since only the parent has it). A watchdog thread kills the process if a request runs
 * past its deadline or the parent is gone, so a query can never outlive the minicode process that started it.
 *
 * A workspace database (`expect`: the identity the jail saw) is opened pinned (issue 19: a folder swapped for a
 * symlink between check and use made the engine read a database outside the workspace). SQLite takes a name, never a
 * descriptor, so: the file is first opened here on descriptors, from `/` down, each component with O_NOFOLLOW through
 * `/proc/self/fd/<dir>/<name>` (no link followed anywhere), and its device and inode checked against the jail's; SQLite
 * is handed `/proc/self/fd/<that descriptor>` and resolves it to the kernel's name for exactly that file; then one of
 * the descriptors SQLite opened must be that same file, else a swap slipped in between its name and its open(2), and
 * the connection is closed and refused. This process is single-threaded for opens (the watchdog opens nothing).
 */
export const script = (betterSqlite3: string): string => String.raw`
// minicode-sqlite-query: one sql_query process (names it in ps and /proc)
"use strict"
const { Worker } = require("node:worker_threads")
let Database
try {
  Database = require(${JSON.stringify(betterSqlite3)})
} catch (cause) {
  process.send({ ready: false, reason: String(cause && cause.message || cause) }, () => process.exit(1))
}
if (Database !== undefined) main()
function main() {
const deadline = new Float64Array(new SharedArrayBuffer(8))
const watchdog = new Worker(
  "const { workerData } = require('node:worker_threads');" +
  "const ppid = process.ppid;" +
  "setInterval(() => {" +
  "  const d = workerData.deadline[0];" +
  "  if (process.ppid !== ppid || (d > 0 && Date.now() > d)) process.kill(process.pid, 'SIGKILL');" +
  "}, 200);",
  { eval: true, workerData: { deadline } }
)
watchdog.unref()
process.on("disconnect", () => process.exit(0))

const fs = require("node:fs")
const C = fs.constants
const swapped = (reason) => ({ ok: false, kind: "refused", rule: "jail.changed", reason })
const fdTable = () => {
  const out = new Map()
  for (const name of fs.readdirSync("/proc/self/fd")) {
    try { const st = fs.fstatSync(Number(name)); out.set(name, st.dev + ":" + st.ino) } catch { out.set(name, "") }
  }
  return out
}
const openPinned = (file, expect, connect) => {
  if (expect === undefined || !fs.existsSync("/proc/self/fd")) return connect(file)
  const parts = file.split("/").filter((p) => p !== "")
  let dir = fs.openSync("/", C.O_RDONLY | C.O_DIRECTORY)
  let fd
  try {
    for (const part of parts.slice(0, -1)) {
      const next = fs.openSync("/proc/self/fd/" + dir + "/" + part, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW)
      fs.closeSync(dir)
      dir = next
    }
    fd = fs.openSync("/proc/self/fd/" + dir + "/" + parts[parts.length - 1], C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK)
  } catch (cause) {
    throw new Refusal(swapped(file + " cannot be opened without following a link (" + (cause && cause.code || cause) + "): it changed since the jail checked it"))
  } finally {
    fs.closeSync(dir)
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw new Refusal(swapped(file + " is not a regular file"))
    if (st.dev !== expect.dev || st.ino !== expect.ino) throw new Refusal(swapped(file + " changed between check and use"))
    const same = st.dev + ":" + st.ino
    const before = fdTable()
    const db = connect("/proc/self/fd/" + fd)
    let found = false
    for (const [name, id] of fdTable()) if (name !== String(fd) && id === same && before.get(name) !== same) found = true
    if (!found) {
      db.close()
      throw new Refusal(swapped(file + " changed while SQLite opened it (a folder on the way was swapped)"))
    }
    return db
  } finally {
    fs.closeSync(fd)
  }
}

const refused = (rule, reason) => ({ ok: false, kind: "refused", rule, reason })
class Refusal { constructor(reply) { this.reply = reply } }

const runOne = (db, statement, params, request) => {
  const prepared = db.prepare(statement.sql)
  if (!request.write) {
    if (!prepared.readonly && !statement.reports) {
      throw new Refusal(refused("sql.engine.not-read-only", "SQLite says this statement writes (sqlite3_stmt_readonly); the connection is read-only"))
    }
    if (statement.rule !== undefined) throw new Refusal(refused("sql.engine.connection-state", statement.rule))
  }
  if (!prepared.reader) {
    const info = prepared.run(...params)
    return { columns: [], rows: [], truncated: false, changes: info.changes }
  }
  prepared.raw(true).safeIntegers(true)
  const columns = prepared.columns().map((c) => c.name)
  const rows = []
  let truncated = false
  for (const row of prepared.iterate(...params)) {
    if (rows.length >= request.maxRows) {
      truncated = true
      break
    }
    rows.push(row)
  }
  return { columns, rows, truncated }
}

const answer = (request) => {
  let db
  try {
    db = openPinned(request.file, request.expect, (name) => new Database(name, { readonly: !request.write, fileMustExist: true, timeout: 2000 }))
    db.pragma("trusted_schema = OFF")
    if (!request.write) db.pragma("query_only = ON")
    const all = () => request.statements.map((s) => runOne(db, s, request.params, request))
    if (!request.write) return { ok: true, results: all() }
    db.exec("BEGIN IMMEDIATE")
    try {
      const results = all()
      db.exec("COMMIT")
      return { ok: true, results }
    } catch (cause) {
      if (db.inTransaction) db.exec("ROLLBACK")
      throw cause
    }
  } catch (cause) {
    if (cause instanceof Refusal) return cause.reply
    return { ok: false, kind: "failed", rule: "sql.engine.error", reason: String(cause && cause.message || cause) }
  } finally {
    if (db !== undefined) db.close()
  }
}

process.on("message", (request) => {
  deadline[0] = request.deadline
  const reply = answer(request)
  deadline[0] = 0
  process.send(reply)
})
process.send({ ready: true })
}
`
