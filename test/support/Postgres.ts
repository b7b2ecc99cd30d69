/**
 * A throwaway PostgreSQL cluster for tests, started the way a user would with Debian's binaries: initdb into a
 * temp dir, pg_ctl start on a random local port with the socket in that dir, stopped (immediate) afterwards.
 * As root the server runs as the `postgres` user (or `nobody`), since PostgreSQL refuses to run as root.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const findBin = (): string | undefined => {
  const roots = ["/usr/lib/postgresql"]
  for (const root of roots) {
    if (!fs.existsSync(root)) continue
    const versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))
    for (const v of versions) {
      const bin = path.join(root, v, "bin")
      if (fs.existsSync(path.join(bin, "initdb")) && fs.existsSync(path.join(bin, "pg_ctl"))) return bin
    }
  }
  return undefined
}

export const hasPostgres = findBin() !== undefined

export interface Cluster {
  /** postgres://minicode:<password>@127.0.0.1:<port>/postgres (password authentication over TCP). */
  readonly url: string
  readonly password: string
  readonly stop: () => void
}

const runAs = (): string | undefined => {
  if (process.getuid?.() !== 0) return undefined
  for (const user of ["postgres", "nobody"]) {
    if (spawnSync("id", [user]).status === 0) return user
  }
  return undefined
}

export const start = (): Cluster => {
  const bin = findBin()
  if (bin === undefined) throw new Error("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)")
  const user = runAs()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-pg-"))
  fs.chmodSync(dir, 0o755)
  const data = path.join(dir, "data")
  const password = `pw-${Math.random().toString(36).slice(2)}`
  const pwfile = path.join(dir, "pw")
  fs.writeFileSync(pwfile, `${password}\n`)
  if (user !== undefined) execFileSync("chown", ["-R", user, dir])
  const exec = (cmd: string, args: ReadonlyArray<string>) =>
    user === undefined
      ? execFileSync(path.join(bin, cmd), args, { stdio: "pipe" })
      : execFileSync("runuser", ["-u", user, "--", path.join(bin, cmd), ...args], { stdio: "pipe", cwd: dir })
  exec("initdb", ["-D", data, "-U", "minicode", "--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"])
  let lastError: unknown
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000)
    try {
      exec("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, "start"])
      const stop = () => {
        try {
          exec("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        } catch {
          // already gone
        }
        fs.rmSync(dir, { recursive: true, force: true })
      }
      return { url: `postgres://minicode:${password}@127.0.0.1:${port}/postgres`, password, stop }
    } catch (cause) {
      lastError = cause
    }
  }
  throw new Error(`cannot start PostgreSQL: ${String(lastError)}`)
}
