/** sql_query through the shipped CLI (dist/bin.js): conformance files with a dialect per case, judged without a database. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const minicode = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" })

describe("minicode policy conformance for sql_query", () => {
  it("passes test/conformance/sql.jsonl", () => {
    const out = minicode(["policy", "conformance", "--cwd", "test/fixtures/workspace", "test/conformance/sql.jsonl"])
    expect(out.stdout).toContain("0 failed")
    expect(out.status).toBe(0)
  })

  it("allows every honest query and denies every attack of the guard corpora, PostgreSQL's parser included", () => {
    const cases: Array<string> = []
    for (const [file, expect] of [["test/corpus/sql-honest.jsonl", "allow"], ["test/corpus/sql-attacks.jsonl", "deny"]] as const) {
      for (const line of fs.readFileSync(file, "utf8").split("\n")) {
        if (line.trim() === "") continue
        const c = JSON.parse(line) as { dialect: string; sql: string; write?: boolean }
        cases.push(JSON.stringify({ tool: "sql_query", args: { sql: c.sql, ...(c.write === true ? { write: true } : {}) }, dialect: c.dialect, expect }))
      }
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlconf-"))
    const file = path.join(dir, "cases.jsonl")
    fs.writeFileSync(file, `${cases.join("\n")}\n`)
    const out = minicode(["policy", "conformance", "--cwd", dir, file])
    expect(out.stdout.split("\n").filter((l) => l.startsWith("FAIL"))).toEqual([])
    expect(out.status).toBe(0)
  })

  it("config sql add/list/remove keeps passwords out of every output", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlcfg-"))
    const out = spawnSync(process.execPath, ["--import", "tsx", "test/support/sql-config-cli.ts"], {
      encoding: "utf8",
      env: { ...process.env, XDG_CONFIG_HOME: home }
    })
    expect(out.stderr).toBe("")
    expect(out.stdout).not.toContain("hunter2")
    expect(out.stdout).toContain("added prod: postgres postgres://me:***@db:5432/app (writes allowed)")
    expect(out.stdout).toContain("prod: postgres postgres://me:***@db:5432/app (writes allowed) [global]")
    expect(out.stdout).toContain("removed prod")
    const stored = fs.readFileSync(path.join(home, "minicode", "config.json"), "utf8")
    expect((fs.statSync(path.join(home, "minicode", "config.json")).mode & 0o777).toString(8)).toBe("600")
    expect(JSON.parse(stored).sql).toEqual({})
  })
})
