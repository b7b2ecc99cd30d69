/** The shipped CLI (dist/bin.js), driven as a user would. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const minicode = (args: ReadonlyArray<string>, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: options.cwd ?? process.cwd(), env: { ...process.env, ...options.env } })

describe("minicode CLI", () => {
  it("prints help and version", () => {
    expect(minicode(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    const help = minicode(["--help"]).stdout
    for (const word of ["tool", "policy", "doctor"]) expect(help).toContain(word)
  })

  it("reads README.md and refuses ../x with a reason", () => {
    const ok = minicode(["tool", "read_file", '{"path":"README.md"}'])
    expect(ok.status).toBe(0)
    expect(ok.stdout).toContain("minicode")
    const no = minicode(["tool", "read_file", '{"path":"../x"}'])
    expect(no.status).toBe(3)
    expect(no.stderr).toContain("outside the workspace")
  })

  it("takes options before or after the positional arguments, and --json", () => {
    const after = minicode(["tool", "read_file", '{"path":"README.md","limit":1}', "--json", "--cwd", "."])
    const before = minicode(["tool", "--json", "--cwd", ".", "read_file", '{"path":"README.md","limit":1}'])
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout))
    expect(JSON.parse(after.stdout).ok).toBe(true)
  })

  it("rejects bad JSON and unknown modes with a clear error", () => {
    const bad = minicode(["tool", "read_file", "{path:"])
    expect(bad.status).not.toBe(0)
    expect(bad.stderr + bad.stdout).toContain("not valid JSON")
    const mode = minicode(["tool", "read_file", '{"path":"README.md"}', "--work-mode", "YOLO"])
    expect(mode.status).not.toBe(0)
    expect(mode.stderr + mode.stdout).toContain("unknown work mode")
    const unrestricted = minicode(["tool", "read_file", '{"path":"README.md"}', "--policy", "unrestricted"])
    expect(unrestricted.status).not.toBe(0)
    expect(unrestricted.stderr + unrestricted.stdout).toContain("programmatic API")
  })

  it("policy explain prints one JSON decision and executes nothing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-explain-"))
    const out = minicode(["policy", "explain", "--cwd", dir, "write_file", '{"path":"x.txt","content":"x"}', "--work-mode", "BUILD", "--json"])
    expect(JSON.parse(out.stdout)).toEqual({ decision: "allow", stage: "permission", rule: "mode.auto", reason: expect.any(String) })
    expect(fs.existsSync(path.join(dir, "x.txt"))).toBe(false)
    const secret = JSON.parse(minicode(["policy", "explain", "--json", "--cwd", dir, "read_file", '{"path":".env"}']).stdout)
    expect(secret).toMatchObject({ decision: "deny", stage: "jail", rule: "jail.sensitive" })
  })

  it("policy conformance passes the shipped cases, reports failures and malformed lines, writes JUnit", () => {
    const good = minicode(["policy", "conformance", "--cwd", "test/fixtures/workspace", "test/conformance/kernel.jsonl"])
    expect(good.status, good.stdout).toBe(0)
    expect(good.stdout.trim().split("\n").pop()).toMatch(/^\d+ passed, 0 failed$/)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-conf-"))
    const cases = path.join(dir, "cases.jsonl")
    fs.writeFileSync(
      cases,
      [
        '{"name":"ok","tool":"read_file","args":{"path":"a"},"expect":"allow"}',
        '{"name":"wrong","tool":"write_file","args":{"path":"a","content":""},"expect":"allow"}',
        "{not json",
        '{"name":"no expect","tool":"read_file","args":{}}',
        '{"name":"unknown","tool":"nope","args":{},"expect":"allow"}',
        ""
      ].join("\n")
    )
    const junit = path.join(dir, "report.xml")
    const out = minicode(["policy", "conformance", "--json", "--junit", junit, "--cwd", dir, cases])
    expect(out.status).toBe(1)
    const lines = out.stdout.trim().split("\n")
    expect(lines.pop()).toBe("1 passed, 4 failed")
    const results = lines.map((l) => JSON.parse(l))
    expect(results.map((r) => r.pass)).toEqual([true, false, false, false, false])
    expect(Object.keys(results[0])).toEqual(["name", "tool", "expect", "got", "stage", "rule", "reason", "pass"])
    expect(results[2].reason).toContain("not valid JSON")
    expect(fs.readFileSync(junit, "utf8")).toContain('<testsuite name="cases.jsonl" tests="5" failures="4">')
  })

  it("ignores a workspace's local config unless trusted", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-local-"))
    fs.mkdirSync(path.join(dir, ".minicode"))
    fs.writeFileSync(path.join(dir, ".minicode/config.json"), JSON.stringify({ workMode: "BUILD", policy: "allow-all" }))
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-home-"))
    const env = { XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
    const untrusted = JSON.parse(minicode(["policy", "explain", "--json", "--cwd", dir, "write_file", '{"path":"a","content":""}'], { env }).stdout)
    expect(untrusted.decision).toBe("deny")
    const trusted = JSON.parse(
      minicode(["policy", "explain", "--json", "--allow-local-config", "--cwd", dir, "write_file", '{"path":"a","content":""}'], { env }).stdout
    )
    expect(trusted.decision).toBe("allow")
    const doctor = JSON.parse(minicode(["doctor", "--json", "--cwd", dir], { env }).stdout)
    expect(doctor.config).toMatchObject({ localFound: true, localUsed: false, globalFound: false })
  })

  it("journals each mutation in its own turn; undo and redo restore files byte for byte; recover never acts", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-undo-")))
    fs.writeFileSync(path.join(dir, "a.txt"), "one\n", { mode: 0o640 })
    const build = ["--cwd", dir, "--work-mode", "BUILD", "--sandbox", "none"]
    expect(minicode(["tool", "write_file", '{"path":"a.txt","content":"two\\n"}', ...build]).status).toBe(0)
    expect(minicode(["tool", "write_file", '{"path":"new/b.txt","content":"b"}', ...build]).status).toBe(0)
    expect(minicode(["tool", "delete_file", '{"path":"a.txt"}', ...build]).status).toBe(0)
    const records = JSON.parse(minicode(["journal", "--json", "--cwd", dir]).stdout)
    expect(records.map((r: { tool: string; turn: number; state: string }) => [r.tool, r.turn, r.state])).toEqual([
      ["write_file", 1, "committed"],
      ["write_file", 2, "committed"],
      ["delete_file", 3, "committed"]
    ])
    const plan = JSON.parse(minicode(["recover", "--json", "--cwd", dir]).stdout)
    expect(plan.items).toEqual([])
    for (let i = 0; i < 3; i++) expect(minicode(["undo", "--cwd", dir]).status).toBe(0)
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n")
    expect(fs.statSync(path.join(dir, "a.txt")).mode & 0o777).toBe(0o640)
    expect(fs.existsSync(path.join(dir, "new/b.txt"))).toBe(false)
    expect(minicode(["redo", "--cwd", dir]).status).toBe(0)
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("two\n")
    // Someone else changes the file: undo refuses that path and says why.
    fs.writeFileSync(path.join(dir, "a.txt"), "theirs\n")
    const refused = minicode(["undo", "--cwd", dir])
    expect(refused.status).toBe(3)
    expect(refused.stdout).toContain("refused a.txt: its content changed since the turn: now 7 bytes in 1 line, the turn left 4 bytes in 1 line")
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("theirs\n")
  })
})
