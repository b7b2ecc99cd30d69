import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runTool, type RunToolResult } from "../../src/index.js"

let ws: string
beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-files-")))
  fs.mkdirSync(path.join(ws, "src/lib"), { recursive: true })
  fs.mkdirSync(path.join(ws, "dist"))
  fs.mkdirSync(path.join(ws, "node_modules/pkg"), { recursive: true })
  fs.writeFileSync(path.join(ws, ".gitignore"), "dist/\nnode_modules/\n*.log\n")
  fs.writeFileSync(path.join(ws, "src/index.ts"), "import { x } from './lib/x'\nexport const main = () => x\n")
  fs.writeFileSync(path.join(ws, "src/lib/x.ts"), "export const x = 'delete me'\n")
  fs.writeFileSync(path.join(ws, "src/lib/.gitignore"), "generated.ts\n")
  fs.writeFileSync(path.join(ws, "src/lib/generated.ts"), "export const g = 'delete me'\n")
  fs.writeFileSync(path.join(ws, "dist/index.js"), "delete me\n")
  fs.writeFileSync(path.join(ws, "node_modules/pkg/index.js"), "delete me\n")
  fs.writeFileSync(path.join(ws, "debug.log"), "delete me\n")
  fs.writeFileSync(path.join(ws, ".env"), "SECRET=delete me\n")
})
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }))

const run = (tool: string, args: unknown) => runTool({ workspace: ws, workMode: "BUILD", tool, args })
const text = (r: RunToolResult) => {
  expect(r.ok, JSON.stringify(r)).toBe(true)
  return r.ok ? r.text : ""
}
const failure = (r: RunToolResult) => {
  expect(r.ok).toBe(false)
  return r.ok ? "" : r.error.message
}

describe("read_file", () => {
  it("numbers lines, honours offset and limit, and marks truncation", async () => {
    fs.writeFileSync(path.join(ws, "long.txt"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n")
    const all = text(await run("read_file", { path: "long.txt" }))
    expect(all.split("\n")[0]).toBe("     1\tline 1")
    expect(all).toContain("[truncated: showing lines 1-2000 of 3000; use offset/limit to read more]")
    const slice = text(await run("read_file", { path: "long.txt", offset: 2999, limit: 5 }))
    expect(slice).toBe("  2999\tline 2999\n  3000\tline 3000")
    expect(failure(await run("read_file", { path: "long.txt", offset: 4000 }))).toContain("past the end")
  })

  it("shows any window of any text as cat -n would (numbers past the first 2000, long lines cut, a final newline)", async () => {
    // The reference: each line of the window, its number right-aligned in six columns, a tab, the line cut at 2000.
    const expected = (lines: ReadonlyArray<string>, offset: number, limit: number) =>
      lines
        .slice(offset - 1, offset - 1 + limit)
        .map((l, i) => `${String(offset + i).padStart(6)}\t${l.length > 2000 ? `${l.slice(0, 2000)} [truncated: line has ${l.length} chars]` : l}`)
        .join("\n")
    const line = fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 30 }).map((l) => l.replace(/[\n\0\r]/g, "")) }, { weight: 1, arbitrary: fc.integer({ min: 1990, max: 2010 }).map((n) => "y".repeat(n)) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 2100 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 50 }),
        async (body, padding, finalNewline, offsetPick, limit) => {
          // Padding lines push the window past the first 2000 line numbers in some runs.
          const content = [...Array.from({ length: padding }, (_, i) => `p${i}`), ...body].join("\n") + (finalNewline ? "\n" : "")
          if (content === "") return
          // A final newline ends the last line; it does not start another.
          const lines = (content.endsWith("\n") ? content.slice(0, -1) : content).split("\n")
          const offset = Math.min(padding + offsetPick, lines.length)
          fs.writeFileSync(path.join(ws, "any.txt"), content)
          const shown = text(await run("read_file", { path: "any.txt", offset, limit }))
          const last = Math.min(offset - 1 + limit, lines.length)
          const note = last < lines.length ? `\n[truncated: showing lines ${offset}-${last} of ${lines.length}; use offset/limit to read more]` : ""
          expect(shown).toBe(expected(lines, offset, limit) + note)
        }
      ),
      { numRuns: 60 }
    )
  })

  it("reports binary files, directories and missing files clearly", async () => {
    fs.writeFileSync(path.join(ws, "bin.dat"), Buffer.from([0, 1, 2, 3]))
    expect(text(await run("read_file", { path: "bin.dat" }))).toBe("[binary file bin.dat, 4 bytes]")
    expect(failure(await run("read_file", { path: "src" }))).toContain("is a directory")
    expect(failure(await run("read_file", { path: "nope.txt" }))).toContain("does not exist")
  })

  it("caps very long lines visibly", async () => {
    fs.writeFileSync(path.join(ws, "wide.txt"), "x".repeat(5000))
    expect(text(await run("read_file", { path: "wide.txt" }))).toContain("[truncated: line has 5000 chars]")
  })
})

describe("write_file and edit_file", () => {
  it("creates parents, replaces content and keeps the file mode", async () => {
    fs.writeFileSync(path.join(ws, "run.sh"), "echo 1\n", { mode: 0o755 })
    expect(text(await run("write_file", { path: "run.sh", content: "echo 2\n" }))).toContain("replaced run.sh")
    expect(fs.statSync(path.join(ws, "run.sh")).mode & 0o777).toBe(0o755)
    expect(text(await run("write_file", { path: "a/b/c.txt", content: "deep" }))).toContain("created a/b/c.txt")
    expect(fs.readFileSync(path.join(ws, "a/b/c.txt"), "utf8")).toBe("deep")
  })

  it("replaces an exact unique match, refuses ambiguous and missing ones, keeps $ patterns literal", async () => {
    fs.writeFileSync(path.join(ws, "e.ts"), "const a = 1\nconst b = 1\n")
    expect(failure(await run("edit_file", { path: "e.ts", old_string: "= 1", new_string: "= 2" }))).toContain("matches 2 times")
    expect(failure(await run("edit_file", { path: "e.ts", old_string: "= 3", new_string: "= 2" }))).toContain("not found")
    expect(text(await run("edit_file", { path: "e.ts", old_string: "const a = 1", new_string: "const a = '$&$1'" }))).toContain("1 replacement")
    expect(fs.readFileSync(path.join(ws, "e.ts"), "utf8")).toBe("const a = '$&$1'\nconst b = 1\n")
    expect(text(await run("edit_file", { path: "e.ts", old_string: "const", new_string: "let", replace_all: true }))).toContain("2 replacements")
    expect(fs.readFileSync(path.join(ws, "e.ts"), "utf8")).toBe("let a = '$&$1'\nlet b = 1\n")
  })

  it("rejects an empty or no-op edit before touching the file", async () => {
    fs.writeFileSync(path.join(ws, "e.ts"), "x\n")
    const r = await run("edit_file", { path: "e.ts", old_string: "", new_string: "y" })
    expect(!r.ok && r.error["rule"]).toBe("validation.edit.empty")
    const same = await run("edit_file", { path: "e.ts", old_string: "x", new_string: "x" })
    expect(!same.ok && same.error["rule"]).toBe("validation.edit.same")
    expect(fs.readFileSync(path.join(ws, "e.ts"), "utf8")).toBe("x\n")
  })
})

describe("list_dir, glob, grep", () => {
  it("lists directories first, marks kinds, hides .minicode", async () => {
    fs.mkdirSync(path.join(ws, ".minicode"))
    fs.symlinkSync("src", path.join(ws, "link"))
    const out = text(await run("list_dir", { path: "." })).split("\n")
    expect(out.slice(0, 4)).toEqual(["dist/", "node_modules/", "src/", ".env"])
    expect(out).toContain("link@")
    expect(out).not.toContain(".minicode/")
  })

  it("glob honours .gitignore (nested too) and matches base names", async () => {
    expect(text(await run("glob", { pattern: "**/*.ts" })).split("\n")).toEqual(["src/index.ts", "src/lib/x.ts"])
    expect(text(await run("glob", { pattern: "*.ts", path: "src/lib" })).split("\n")).toEqual(["src/lib/x.ts"])
    expect(text(await run("glob", { pattern: "*.nothing" }))).toContain("no files match")
  })

  it("grep honours .gitignore, skips secrets, reports file:line:text", async () => {
    const out = text(await run("grep", { pattern: "delete me" }))
    // the secret is left out unopened, and said so (issue 40)
    expect(out).toMatch(/^src\/lib\/x\.ts:1:export const x = 'delete me'\n\[1 protected path left out, never opened[^\n]*\]$/)
    expect(text(await run("grep", { pattern: "DELETE", ignore_case: true, glob: "*.ts" }))).toContain("src/lib/x.ts:1:")
    expect(text(await run("grep", { pattern: "main", path: "src/index.ts" }))).toBe("src/index.ts:2:export const main = () => x")
    const bad = await run("grep", { pattern: "(" })
    expect(!bad.ok && bad.error["rule"]).toBe("validation.grep.pattern")
  })
})

describe("move_file and delete_file", () => {
  it("moves, refuses to clobber unless overwrite, deletes files only", async () => {
    fs.writeFileSync(path.join(ws, "one.txt"), "1")
    fs.writeFileSync(path.join(ws, "two.txt"), "2")
    expect(failure(await run("move_file", { from: "one.txt", to: "two.txt" }))).toContain("overwrite: true")
    expect(fs.readFileSync(path.join(ws, "two.txt"), "utf8")).toBe("2")
    expect(text(await run("move_file", { from: "one.txt", to: "two.txt", overwrite: true }))).toContain("moved")
    expect(fs.readFileSync(path.join(ws, "two.txt"), "utf8")).toBe("1")
    expect(text(await run("move_file", { from: "two.txt", to: "moved/three.txt" }))).toContain("moved/three.txt")
    expect(failure(await run("delete_file", { path: "src" }))).toContain("files only")
    expect(text(await run("delete_file", { path: "moved/three.txt" }))).toBe("deleted moved/three.txt")
    expect(fs.existsSync(path.join(ws, "moved/three.txt"))).toBe(false)
    const out = await run("move_file", { from: "src/index.ts", to: "../escaped.ts" })
    expect(!out.ok && out.error["rule"]).toBe("jail.outside-workspace")
    expect(fs.existsSync(path.join(ws, "src/index.ts"))).toBe(true)
  })

  it("deleting a symlink removes the link, not its target", async () => {
    fs.symlinkSync("src/index.ts", path.join(ws, "alias.ts"))
    expect(text(await run("delete_file", { path: "alias.ts" }))).toBe("deleted alias.ts")
    expect(fs.existsSync(path.join(ws, "src/index.ts"))).toBe(true)
  })
})

describe("output caps", () => {
  it("caps every output with a visible marker", async () => {
    fs.writeFileSync(path.join(ws, "big.txt"), Array.from({ length: 1500 }, () => "y".repeat(1000)).join("\n"))
    const r = await runTool({ workspace: ws, tool: "read_file", args: { path: "big.txt" }, maxOutputBytes: 10_000 })
    expect(r.ok && r.truncated).toBe(true)
    expect(r.ok && r.text).toMatch(/\[truncated: \d+ more bytes of \d+\]$/)
  })
})
