/**
 * A throwaway MariaDB server for tests, started the way a user would with Debian's binaries: mariadb-install-db into
 * a temp dir, mariadbd on a random local port with its socket in that dir, killed and removed afterwards. Real
 * grants: `minicode` (all privileges on database `app`, password over TCP) and `reader` (SELECT on `app` only).
 * As root the server runs as the `mysql` user (MariaDB refuses to run as root without --user).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const daemon = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld"].find((p) => fs.existsSync(p))
const installer = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"].find((p) => fs.existsSync(p))
const client = ["/usr/bin/mariadb", "/usr/bin/mysql"].find((p) => fs.existsSync(p))

export const hasMariadb = daemon !== undefined && installer !== undefined && client !== undefined

export interface Server {
  /** mysql://minicode:<password>@127.0.0.1:<port>/app */
  readonly url: string
  /** mysql://reader:<password>@127.0.0.1:<port>/app: SELECT on app.* only. */
  readonly readerUrl: string
  /** mysql://root@127.0.0.1:<port>/app: every privilege (the worst case an attack can meet). */
  readonly rootUrl: string
  /** Runs SQL as root over the socket (setup and checks that bypass minicode). */
  readonly admin: (sql: string) => string
  readonly stop: () => void
}

const runAs = (): string | undefined => {
  if (process.getuid?.() !== 0) return undefined
  for (const user of ["mysql", "nobody"]) if (spawnSync("id", [user]).status === 0) return user
  return undefined
}

const waitFor = (check: () => boolean, ms: number): boolean => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (check()) return true
    spawnSync("sleep", ["0.2"])
  }
  return false
}

export const start = (): Server => {
  if (daemon === undefined || installer === undefined || client === undefined) {
    throw new Error("MariaDB binaries not found (apt-get install -y mariadb-server)")
  }
  const user = runAs()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-my-"))
  fs.chmodSync(dir, 0o755)
  const data = path.join(dir, "data")
  const socket = path.join(dir, "sock")
  // Its own temp folder: a shared /tmp cleaned by another test under way made the install fail (CI: "Error on delete
  // of '/tmp/#sql-temptable-…'").
  const tmp = path.join(dir, "tmp")
  fs.mkdirSync(tmp)
  if (user !== undefined) execFileSync("chown", ["-R", user, dir])
  execFileSync(installer, ["--no-defaults", `--datadir=${data}`, "--auth-root-authentication-method=normal", "--skip-test-db", ...(user === undefined ? [] : [`--user=${user}`])], {
    stdio: "pipe",
    env: { ...process.env, TMPDIR: tmp }
  })
  const password = `pw-${Math.random().toString(36).slice(2)}`
  const port = 20_000 + Math.floor(Math.random() * 40_000)
  const server = spawn(daemon, [
    "--no-defaults", `--datadir=${data}`, `--tmpdir=${tmp}`, `--socket=${socket}`, `--port=${port}`, "--bind-address=127.0.0.1",
    `--pid-file=${path.join(dir, "pid")}`, `--log-error=${path.join(dir, "err.log")}`, "--skip-log-bin",
    "--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--innodb-flush-log-at-trx-commit=0",
    ...(user === undefined ? [] : [`--user=${user}`])
  ], { stdio: "ignore", detached: false })
  const admin = (sql: string): string =>
    execFileSync(client, ["--no-defaults", "-S", socket, "-uroot", "-N", "-B", "-e", sql], { stdio: "pipe", encoding: "utf8" })
  const stop = () => {
    server.kill("SIGKILL")
    waitFor(() => server.exitCode !== null || server.signalCode !== null, 5_000)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const up = waitFor(() => {
    try {
      admin("SELECT 1")
      return true
    } catch {
      return false
    }
  }, 60_000)
  if (!up) {
    const log = fs.existsSync(path.join(dir, "err.log")) ? fs.readFileSync(path.join(dir, "err.log"), "utf8").slice(-2000) : ""
    stop()
    throw new Error(`cannot start MariaDB: ${log}`)
  }
  admin([
    "CREATE DATABASE app",
    `CREATE USER 'minicode'@'127.0.0.1' IDENTIFIED BY '${password}'`,
    "GRANT ALL PRIVILEGES ON app.* TO 'minicode'@'127.0.0.1'",
    `CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY '${password}'`,
    "GRANT SELECT ON app.* TO 'reader'@'127.0.0.1'"
  ].join("; "))
  return {
    url: `mysql://minicode:${password}@127.0.0.1:${port}/app`,
    readerUrl: `mysql://reader:${password}@127.0.0.1:${port}/app`,
    rootUrl: `mysql://root@127.0.0.1:${port}/app`,
    admin,
    stop
  }
}
