/**
 * Issue 40 item 3, end to end on the built CLI and `mcp serve`: edit_file and write_file keep a file's UTF-8 BOM and
 * line endings byte for byte, an old_string written with `\n` matches a CRLF (or CR, or mixed) file, new_string lands
 * in the file's own style, and when an old_string does not match or matches twice once line endings are compared
 * loosely, the error says so and the file is unchanged. read_file says a BOM is there.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, ensureBuilt, isErrorResult, makeWorkspace, textOf } from "../serve/support/McpServeHarness.js"

beforeAll(() => ensureBuilt(), 120_000)
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const BOM = "\uFEFF"
interface Case {
  readonly name: string
  readonly before: Buffer
  readonly tool: "edit_file" | "write_file" | "read_file"
  readonly args: Record<string, unknown>
  /** The file's bytes after the call (unchanged when undefined). */
  readonly after?: Buffer
  /** What the result (or the error) says. */
  readonly says: RegExp
  readonly fails?: boolean
}

const b = (s: string) => Buffer.from(s, "utf8")
const cases: ReadonlyArray<Case> = [
  { name: "BOM, first line", before: b(`${BOM}line1\nline2\n`), tool: "edit_file", args: { old_string: "line1", new_string: "LINE1" }, after: b(`${BOM}LINE1\nline2\n`), says: /1 replacement/ },
  { name: "BOM, whole file as read_file shows it", before: b(`${BOM}a\nb\n`), tool: "edit_file", args: { old_string: "a\nb\n", new_string: "c\n" }, after: b(`${BOM}c\n`), says: /1 replacement/ },
  { name: "BOM, old_string copied with the BOM", before: b(`${BOM}a\nb\n`), tool: "edit_file", args: { old_string: `${BOM}a`, new_string: "z" }, after: b(`${BOM}z\nb\n`), says: /1 replacement/ },
  { name: "BOM, replace_all", before: b(`${BOM}x=1\nx=2\n`), tool: "edit_file", args: { old_string: "x", new_string: "y", replace_all: true }, after: b(`${BOM}y=1\ny=2\n`), says: /2 replacements/ },
  { name: "write_file over a BOM file", before: b(`${BOM}old\n`), tool: "write_file", args: { content: "new\n" }, after: b(`${BOM}new\n`), says: /byte order mark kept/ },
  { name: "read_file says the BOM is there", before: b(`${BOM}hello\n`), tool: "read_file", args: {}, says: /1\thello\n\[the file starts with a UTF-8 byte order mark/ },
  { name: "CRLF, multi-line old_string with \\n", before: b("a\r\nb\r\nc\r\n"), tool: "edit_file", args: { old_string: "a\nb", new_string: "A\nB\nX" }, after: b("A\r\nB\r\nX\r\nc\r\n"), says: /1 replacement/ },
  { name: "CRLF in new_string on an LF file", before: b("a\nb\n"), tool: "edit_file", args: { old_string: "a", new_string: "1\r\n2" }, after: b("1\n2\nb\n"), says: /1 replacement/ },
  { name: "lone CR line endings", before: b("a\rb\rc\r"), tool: "edit_file", args: { old_string: "a\nb", new_string: "x\ny" }, after: b("x\ry\rc\r"), says: /1 replacement/ },
  { name: "mixed endings: the edit takes the style of the lines it replaces", before: b("a\nb\nc\r\nd\r\n"), tool: "edit_file", args: { old_string: "c\nd", new_string: "C\nD" }, after: b("a\nb\nC\r\nD\r\n"), says: /1 replacement/ },
  { name: "ambiguous once line endings are compared loosely", before: b("a\nb\r\na\r\nb\n"), tool: "edit_file", args: { old_string: "a\nb", new_string: "x" }, says: /matches 2 times .*line endings compared loosely.*mixed CRLF, LF line endings/, fails: true },
  { name: "not found on a CRLF file says why", before: b("a\r\nb\r\n"), tool: "edit_file", args: { old_string: "a\nc", new_string: "x" }, says: /not found .*line endings compared loosely.*CRLF line endings/, fails: true },
  { name: "bytes that are not UTF-8 outside the edit are kept", before: Buffer.from([0x63, 0xe9, 0x0a, 0x6f, 0x6c, 0x64, 0x0a, 0xff, 0x0a]), tool: "edit_file", args: { old_string: "old", new_string: "new" }, after: Buffer.from([0x63, 0xe9, 0x0a, 0x6e, 0x65, 0x77, 0x0a, 0xff, 0x0a]), says: /1 replacement/ }
]

const check = (c: Case, file: string, result: { readonly ok: boolean; readonly text: string }) => {
  expect(result.text).toMatch(c.says)
  expect(result.ok).toBe(c.fails !== true)
  expect(fs.readFileSync(file).toString("hex")).toBe((c.after ?? c.before).toString("hex"))
}

describe("edit_file and write_file keep BOMs and line endings (built CLI)", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const ws = makeWorkspace()
      cleanups.push(ws.cleanup)
      const file = path.join(ws.root, "f.txt")
      fs.writeFileSync(file, c.before)
      const out = await runCli(bin, ["--work-mode", "BUILD", "tool", c.tool, JSON.stringify({ path: "f.txt", ...c.args })], { cwd: ws.root })
      check(c, file, { ok: out.status === 0, text: out.status === 0 ? out.stdout : out.stderr })
    })
  }
})

describe("edit_file and write_file keep BOMs and line endings (mcp serve)", () => {
  it("every case through one server", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const s = await connect(ws.root, ["--sandbox", "none"])
    cleanups.push(() => s.close().catch(() => undefined))
    for (const [i, c] of cases.entries()) {
      const name = `f${i}.txt`
      const file = path.join(ws.root, name)
      fs.writeFileSync(file, c.before)
      const result = await s.client.callTool({ name: c.tool, arguments: { path: name, ...c.args } })
      check(c, file, { ok: !isErrorResult(result), text: textOf(result) })
    }
  }, 60_000)
})
