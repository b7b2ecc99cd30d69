/**
 * `config sql add` refuses a URL that can never work (issue 43) and says what is wrong, without the password; the
 * config file is not written. Before, such URLs were stored and MariaDB answered the first call with "internal error".
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")

describe("config sql add validates the url", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-urlcfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-urlws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  afterAll(() => {
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(ws, { recursive: true, force: true })
  })
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["mysql://u:topsecret@127.0.0.1:abc/app", "the port must be a number"],
    ["postgres:///app", "names no host"],
    ["mysql://u:top/secret@127.0.0.1/app", "unencoded '/', '#' or '?'"],
    ["mariadb://u:top#secret@127.0.0.1/app", "unencoded '/', '#' or '?'"]
  ]
  for (const [url, said] of cases) {
    it(`refuses ${url.replace(/secret/, "…")}`, async () => {
      const out = await runCli(bin, ["config", "sql", "add", "bad", "--url", url], { env, cwd: ws })
      expect(out.status).toBe(2)
      expect(out.stderr).toContain(said)
      expect(out.stdout + out.stderr).not.toContain("secret")
      const list = await runCli(bin, ["config", "sql", "list"], { env, cwd: ws })
      expect(list.stdout).not.toContain("bad")
    }, 30_000)
  }
  it("a good url is still added", async () => {
    const out = await runCli(bin, ["config", "sql", "add", "good", "--url", "mysql://u:p%2Fq@127.0.0.1:3306/app"], { env, cwd: ws })
    expect(out.status, out.stderr).toBe(0)
  }, 30_000)
})
