/**
 * What a person at a terminal sees of the built CLI (issue 40 item 13, issue 44 item 1), on a real pseudo-terminal
 * (test/support/Pty): the approval prompt takes one answer, echoed once, and gives the shell back; control
 * characters in names, file contents, command output, SQL cells and refusals are shown escaped, never obeyed, and a
 * name with a newline never forges a line. Piped output is made visible the same way; `--json` and `mcp serve` keep
 * the data exact.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { onPty } from "../support/Pty.js"
import { connect, textOf } from "../serve/support/McpServeHarness.js"

const bin = path.resolve("dist/bin.js")
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})
const workspace = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-terminal-")))
  made.push(dir)
  return dir
}
const cli = (...args: ReadonlyArray<string>) => [process.execPath, bin, ...args]

const ESC = "\x1b"
/** An OSC 52 clipboard write, a screen clear, a C1 CSI, a right-to-left override. */
const osc52 = `${ESC}]52;c;aGVsbG8=\x07`
const clear = `${ESC}[2J`
const c1 = "\u009b31m"
const rlo = "\u202e"
/** What a terminal would obey: none of these may reach it raw. */
const obeyed = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\x1b/

/** minicode's own status line (drawn and erased while grep or sql_query work) is not from the workspace. */
const content = (screen: string) => screen.replace(/\r\x1b\[K/g, "")
/** The screen without the terminal's own line ends (the pty turns \n into \r\n). */
const lines = (screen: string) => screen.replace(/\r\n/g, "\n").split("\n")

const forged = "x\nminicode: approved"
const oddNames = [`a${osc52}b`, `c${clear}d`, forged, `e${c1}f`, `g${rlo}txt.exe`]
const withOddNames = () => {
  const ws = workspace()
  for (const name of oddNames) fs.writeFileSync(path.join(ws, name), "")
  return ws
}

describe("the approval prompt on a terminal", { timeout: 120_000 }, () => {
  const ask = ["--work-mode", "BUILD", "--permission-mode", "ASK"]

  it("takes one answer, echoed once, runs the call and gives the shell back: the next line goes to the shell", async () => {
    const ws = workspace()
    const script = `${cli("tool", "write_file", JSON.stringify({ path: "f.txt", content: "x" }), ...ask).map((w) => `'${w}'`).join(" ")}; echo "exit $?"; IFS= read -r line; echo "shell got [$line]"`
    const run = await onPty(["sh", "-c", script], {
      cwd: ws,
      steps: [
        { after: "allow? [y]es / [n]o / [a]lways: ", send: "y\r" },
        { after: "exit 0", send: "ls -la\r" }
      ]
    })
    expect(run.exited).toBe(true)
    expect(run.screen).toContain("allow? [y]es / [n]o / [a]lways: y\r\ncreated f.txt (1 bytes)")
    // The answer shows once: not "y\r\ny", not a redraw of the prompt line.
    expect(run.screen.split("allow?")[1]).not.toMatch(/y\r?\n?y/)
    expect(run.screen).toContain("shell got [ls -la]")
    expect(fs.readFileSync(path.join(ws, "f.txt"), "utf8")).toBe("x")
  })

  it("no, or nothing useful three times, or end of input: denied, nothing written, the process ends by itself", async () => {
    for (const steps of [
      [{ after: "[a]lways: ", send: "n\r" }],
      [{ after: "[a]lways: ", send: "what\r" }, { after: "[a]lways: ", send: "?\r" }, { after: "[a]lways: ", send: "hm\r" }],
      [{ after: "[a]lways: ", send: "\x04" }]
    ]) {
      const ws = workspace()
      const run = await onPty(cli("tool", "write_file", JSON.stringify({ path: "f.txt", content: "x" }), ...ask), { cwd: ws, steps })
      expect(run.exited).toBe(true)
      expect(run.status).toBe(3)
      expect(fs.existsSync(path.join(ws, "f.txt"))).toBe(false)
    }
  })

  it("shows the path it asks about with its control characters visible: a name cannot draw a forged question", async () => {
    const ws = workspace()
    const name = `${clear}${forged}${osc52}`
    const run = await onPty(cli("tool", "write_file", JSON.stringify({ path: name, content: "x" }), ...ask), {
      cwd: ws,
      steps: [{ after: "[a]lways: ", send: "n\r" }]
    })
    expect(run.exited).toBe(true)
    expect(content(run.screen)).not.toMatch(obeyed)
    expect(lines(run.screen).some((l) => l.startsWith("minicode: approved"))).toBe(false)
    expect(run.screen).toContain("\\u001b[2Jx\\nminicode: approved\\u001b]52;c;aGVsbG8=\\u0007")
  })
})

describe("control characters on a terminal are shown, not obeyed", { timeout: 120_000 }, () => {
  it("list_dir: names with ESC sequences, C1, bidi overrides are quoted and escaped; a newline forges no line", async () => {
    const ws = withOddNames()
    const run = await onPty(cli("tool", "list_dir", '{"path":"."}'), { cwd: ws })
    expect(run.status).toBe(0)
    expect(content(run.screen)).not.toMatch(obeyed)
    expect(lines(run.screen).some((l) => l.startsWith("minicode: approved"))).toBe(false)
    for (const name of oddNames) expect(lines(run.screen)).toContain(JSON.stringify(name).replace(/[\u0080-\u009f\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
  })

  it("bash: the streamed output and the result keep tabs and newlines and show every other control", async () => {
    const ws = workspace()
    const command = `printf 'one\\ttab\\n\\033]52;c;aGVsbG8=\\007\\033[2J\\302\\233x\\342\\200\\256y\\rz\\n'`
    const run = await onPty(cli("tool", "bash", JSON.stringify({ command }), "--work-mode", "EXECUTE", "--sandbox", "none"), { cwd: ws })
    expect(run.status).toBe(0)
    expect(content(run.screen)).not.toMatch(obeyed)
    const shown = "\\u001b]52;c;aGVsbG8=\\u0007\\u001b[2J\\u009bx\\u202ey\\rz"
    // Once streamed as it came (stderr), once in the result (stdout).
    expect(run.screen.split(shown).length - 1).toBe(2)
    expect(run.screen).toContain("one\ttab\r\n")
  })

  it("read_file and grep: a file's ESC sequences are shown; its tabs stay tabs", async () => {
    const ws = workspace()
    fs.writeFileSync(path.join(ws, "evil.txt"), `title\t${osc52}${clear}needle${c1}${rlo}\n`)
    for (const args of [["read_file", '{"path":"evil.txt"}'], ["grep", '{"pattern":"needle","path":"."}']] as const) {
      const run = await onPty(cli("tool", ...args), { cwd: ws })
      expect(run.status).toBe(0)
      expect(content(run.screen)).not.toMatch(obeyed)
      expect(run.screen).toContain("title\t\\u001b]52;c;aGVsbG8=\\u0007\\u001b[2Jneedle\\u009b31m\\u202e")
    }
  })

  it("sql_query: a cell holding ESC sequences is shown escaped", async () => {
    const ws = workspace()
    execFileSync("python3", ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(v text)'); c.execute('insert into t values (?)', (sys.argv[2],)); c.commit()", path.join(ws, "d.db"), `cell${osc52}${clear}`])
    const run = await onPty(cli("tool", "sql_query", JSON.stringify({ sql: "select v from t", connection: "d.db" })), { cwd: ws })
    expect(run.status).toBe(0)
    expect(content(run.screen)).not.toMatch(obeyed)
    expect(run.screen).toContain("cell\\u001b]52;c;aGVsbG8=\\u0007\\u001b[2J")
  })

  it("a refusal naming a path shows it quoted and escaped", async () => {
    const ws = workspace()
    const run = await onPty(cli("tool", "write_file", JSON.stringify({ path: `../${clear}${forged}`, content: "x" }), "--work-mode", "BUILD"), { cwd: ws })
    expect(run.status).toBe(3)
    expect(content(run.screen)).not.toMatch(obeyed)
    expect(lines(run.screen).some((l) => l.startsWith("minicode: approved"))).toBe(false)
  })
})

describe("off a terminal", { timeout: 120_000 }, () => {
  it("piped output is made visible too: no name forges a line, no ESC reaches a pager", async () => {
    const ws = withOddNames()
    const run = await runCli(bin, ["tool", "list_dir", '{"path":"."}'], { cwd: ws })
    expect(run.status).toBe(0)
    expect(run.stdout).not.toMatch(obeyed)
    expect(run.stdout.split("\n").some((l) => l.startsWith("minicode: approved"))).toBe(false)
  })

  it("--json keeps the data exact: each quoted name parses back to the very name, the file's bytes come back as they are", async () => {
    const ws = withOddNames()
    fs.writeFileSync(path.join(ws, "evil.txt"), `t\t${osc52}${c1}${rlo}\n`)
    const list = await runCli(bin, ["tool", "list_dir", '{"path":"."}', "--json"], { cwd: ws })
    expect(list.stdout).not.toMatch(obeyed)
    const text: string = JSON.parse(list.stdout).text
    const names = text.split("\n").map((l) => (l.startsWith('"') ? JSON.parse(l) : l))
    expect([...names].sort()).toEqual([...oddNames, "evil.txt"].sort())
    const read = await runCli(bin, ["tool", "read_file", '{"path":"evil.txt"}', "--json"], { cwd: ws })
    expect(read.stdout).not.toMatch(obeyed)
    expect(JSON.parse(read.stdout).text).toBe(`     1\tt\t${osc52}${c1}${rlo}`)
  })

  it("mcp serve gives the names back byte-exact (structured entries, and the quoted text parses back to them)", async () => {
    const ws = withOddNames()
    const s = await connect(ws, ["--sandbox", "none"])
    try {
      const list = await s.client.callTool({ name: "list_dir", arguments: { path: "." } })
      const entries = (list.structuredContent as { entries: ReadonlyArray<{ name: string }> }).entries.map((e) => e.name)
      expect([...entries].sort()).toEqual([...oddNames].sort())
      const names = textOf(list).split("\n").map((l) => (l.startsWith('"') ? JSON.parse(l) : l))
      expect([...names].sort()).toEqual([...oddNames].sort())
    } finally {
      await s.close()
    }
  })
})

describe("a newline in what the call names forges no line on the terminal", { timeout: 120_000 }, () => {
  it("in a refusal's reason (the guard quoting a command) and in grep's no-match line", async () => {
    const ws = workspace()
    const refused = await runCli(bin, ["tool", "bash", JSON.stringify({ command: 'rm -rf "/\nminicode: approved"' }), "--work-mode", "BUILD"], { cwd: ws })
    expect(refused.status).toBe(3)
    expect(refused.stderr).toContain("(guard.destruction): rm -r /\\nminicode: approved targets the file system root\nTo proceed: ")
    expect(refused.stderr.split("\n").some((l) => l.startsWith("minicode: approved"))).toBe(false)
    const grep = await runCli(bin, ["tool", "grep", JSON.stringify({ pattern: "zz\nminicode: approved", path: "." })], { cwd: ws })
    expect(grep.stdout).toContain("no matches for /zz\\nminicode: approved/")
  })
})
