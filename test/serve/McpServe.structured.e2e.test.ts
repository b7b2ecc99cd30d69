/**
 * End to end: results with structure declare an outputSchema in tools/list and return structuredContent beside
 * the text (the SDK client checks the one against the other): list_dir entries, git_status entries.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt, isErrorResult, makeGitWorkspace, textOf } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

describe("mcp serve: structuredContent and outputSchema", () => {
  it("list_dir and git_status give their entries as data, matching the schema they declare; the text stays", async () => {
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    fs.mkdirSync(path.join(ws.root, "src"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "one\n")
    ws.git("add", "a.txt")
    ws.git("commit", "-q", "-m", "first")
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    fs.writeFileSync(path.join(ws.root, "b.txt"), "new\n")
    const s = await connect(ws.root, ["--sandbox", "none"])
    cleanups.push(() => s.close().catch(() => undefined))
    const tools = (await s.client.listTools()).tools
    expect(tools.find((t) => t.name === "list_dir")?.outputSchema).toMatchObject({ type: "object", required: ["entries", "truncated"] })
    expect(tools.find((t) => t.name === "read_file")?.outputSchema).toBeUndefined()
    // The client validates structuredContent against the listed outputSchema: a mismatch would throw here.
    const list = await s.client.callTool({ name: "list_dir", arguments: { path: "." } })
    expect(isErrorResult(list)).toBe(false)
    expect(textOf(list)).toContain("src/")
    expect(list.structuredContent).toEqual({
      entries: [
        { name: ".git", kind: "directory" },
        { name: "src", kind: "directory" },
        { name: "a.txt", kind: "file" },
        { name: "b.txt", kind: "file" }
      ],
      truncated: false
    })
    const status = await s.client.callTool({ name: "git_status", arguments: {} })
    expect(textOf(status)).toContain("a.txt")
    expect(status.structuredContent).toMatchObject({
      branch: expect.stringContaining("main"),
      entries: expect.arrayContaining([{ status: " M", path: "a.txt" }, { status: "??", path: "b.txt" }]),
      truncated: false
    })
    // An error result has no structured content.
    const missing = await s.client.callTool({ name: "list_dir", arguments: { path: "nope" } })
    expect(isErrorResult(missing)).toBe(true)
    expect(missing.structuredContent).toBeUndefined()
  })
})
