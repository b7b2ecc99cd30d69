/**
 * Issue 40 item 12, end to end on the built CLI and `mcp serve`: a path that cannot name a file exactly as the caller
 * sent it is refused with a sentence, and no file is made, read, moved or listed under another name. Two ways in:
 * bytes that are not UTF-8 (in argv, on the server's stdin), which arrive as U+FFFD, and a JSON `\ud800` (an
 * unpaired surrogate, which Node would write as U+FFFD's bytes). The workspace holds files whose names really are
 * `…\uFFFD…` (EF BF BD on disk): before the fix, read_file of `x\xff.txt` read `x\uFFFD.txt`, write_file made it,
 * move_file moved it.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, ensureBuilt, makeWorkspace, Raw, snapshot } from "../serve/support/McpServeHarness.js"

beforeAll(() => ensureBuilt(), 120_000)
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c()
})

/** A workspace with a file and a folder whose names hold U+FFFD (as UTF-8, EF BF BD), which a lossy decode would hit. */
const start = () => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  fs.writeFileSync(path.join(ws.root, "x\uFFFD.txt"), "replaced name\n")
  fs.mkdirSync(path.join(ws.root, "d\uFFFD"))
  fs.writeFileSync(path.join(ws.root, "d\uFFFD", "inner.txt"), "needle\n")
  fs.writeFileSync(path.join(ws.root, "plain.txt"), "needle\n")
  return ws
}

/**
 * Each call with `@` where the bad path goes: `\xff` (a byte that is not UTF-8) or `\ud800` (an unpaired surrogate,
 * as JSON escapes it). The names are those the workspace holds with U+FFFD in their place.
 */
const calls: ReadonlyArray<{ readonly tool: string; readonly args: (bad: (name: string) => string) => Record<string, unknown> }> = [
  { tool: "read_file", args: (b) => ({ path: b("x@.txt") }) },
  { tool: "write_file", args: (b) => ({ path: b("x@.txt"), content: "overwritten" }) },
  { tool: "write_file", args: (b) => ({ path: b("new@.txt"), content: "created" }) },
  { tool: "edit_file", args: (b) => ({ path: b("x@.txt"), old_string: "replaced", new_string: "edited" }) },
  { tool: "move_file", args: (b) => ({ from: b("x@.txt"), to: "moved.txt" }) },
  { tool: "move_file", args: (b) => ({ from: "plain.txt", to: b("m@.txt") }) },
  { tool: "delete_file", args: (b) => ({ path: b("x@.txt") }) },
  { tool: "list_dir", args: (b) => ({ path: b("d@") }) },
  { tool: "glob", args: (b) => ({ pattern: "*.txt", path: b("d@") }) },
  { tool: "grep", args: (b) => ({ pattern: "needle", path: b("d@") }) }
]

const MARK = "@BAD@"
/** The call's JSON (the bad spot marked, then replaced by the bytes or the escape). */
const jsonWith = (args: Record<string, unknown>) => JSON.stringify(args)

const refusal = /unpaired surrogate|U\+FFFD/

/** argv with raw bytes: a shell's printf makes them (Node's spawn takes strings only). */
const runRaw = (cwd: string, tool: string, argBytes: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", 'exec "$0" "$1" --work-mode BUILD --sandbox none tool "$2" "$(printf "$ARGS")"', process.execPath, bin, tool], {
      cwd,
      env: { ...process.env, ARGS: argBytes },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

describe("a path that cannot be encoded as sent is refused (CLI)", () => {
  for (const c of calls) {
    const shown = jsonWith(c.args((n) => n.replace("@", "\\xff")))
    it(`${c.tool} ${shown}: invalid UTF-8 in argv`, async () => {
      const ws = start()
      const before = snapshot(ws.parent)
      // printf's format: `\377` is the byte 0xFF (the JSON has no other backslash or percent sign).
      const format = jsonWith(c.args((n) => n.replace("@", MARK))).replace(MARK, "\\377")
      const out = await runRaw(ws.root, c.tool, format)
      expect(out.stderr).toMatch(refusal)
      expect(out.status).toBe(2)
      expect(out.stdout).not.toContain("needle")
      expect(out.stdout).not.toContain("replaced name")
      expect(snapshot(ws.parent)).toEqual(before)
    })
    it(`${c.tool}: an unpaired surrogate (\\ud800) in the JSON`, async () => {
      const ws = start()
      const before = snapshot(ws.parent)
      const json = jsonWith(c.args((n) => n.replace("@", MARK))).replace(MARK, "\\ud800")
      const out = await runCli(bin, ["--work-mode", "BUILD", "--sandbox", "none", "tool", c.tool, json], { cwd: ws.root })
      expect(out.stderr).toMatch(refusal)
      expect(out.status).toBe(2)
      expect(snapshot(ws.parent)).toEqual(before)
    })
  }

  it("a valid name still works, and the refusal names the character", async () => {
    const ws = start()
    const ok = await runCli(bin, ["--work-mode", "BUILD", "tool", "write_file", '{"path":"caf\u00e9 \ud83d\ude00.txt","content":"ok\\n"}'], { cwd: ws.root })
    expect(ok.status, ok.stderr).toBe(0)
    expect(fs.readFileSync(path.join(ws.root, "caf\u00e9 \u{1F600}.txt"), "utf8")).toBe("ok\n")
    const bad = await runRaw(ws.root, "read_file", '{"path":"ab\\377c"}')
    expect(bad.stderr).toContain("args.path: the path has U+FFFD (the replacement character) at character 3")
  })
})

describe("a path that cannot be encoded as sent is refused (mcp serve)", () => {
  it("every path tool, by raw bytes that are not UTF-8 and by \\ud800, answers isError with the sentence and changes nothing", async () => {
    const ws = start()
    const before = snapshot(ws.parent)
    const raw = new Raw(ws.root, ["--sandbox", "none"])
    cleanups.push(() => raw.kill())
    await raw.init()
    let id = 0
    const sent: Array<{ id: number; what: string }> = []
    for (const c of calls) {
      const message = (args: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: c.tool, arguments: args } })
      // The raw byte 0xFF in the line the server reads.
      const [head = "", tail = ""] = message(c.args((n) => n.replace("@", MARK))).split(MARK)
      raw.child.stdin.write(Buffer.concat([Buffer.from(head), Buffer.from([0xff]), Buffer.from(`${tail}\n`)]))
      sent.push({ id, what: `${c.tool} 0xff` })
      raw.send(message(c.args((n) => n.replace("@", MARK))).replace(MARK, "\\ud800"))
      sent.push({ id, what: `${c.tool} \\ud800` })
    }
    for (const s of sent) {
      const reply = await raw.reply(s.id)
      const text = JSON.stringify(reply.result)
      expect(text, s.what).toContain('"isError":true')
      expect(text, s.what).toMatch(refusal)
      expect(text, s.what).not.toContain("needle")
      expect(text, s.what).not.toContain("replaced name")
    }
    expect(snapshot(ws.parent)).toEqual(before)
  }, 60_000)
})
