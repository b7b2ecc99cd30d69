/**
 * The annotations clients trust (some approve a `readOnlyHint` tool without asking), pinned for every tool at every
 * scope level, as the BUILT `minicode mcp serve` lists them to the SDK's real Client. Any change to a tool's
 * annotations, title or listing fails here.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import { connect, ensureBuilt, makeWorkspace } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

beforeAll(() => ensureBuilt(), 120_000)

type Level = "off" | "read" | "write"

interface Hints {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

const hints = (readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean, openWorldHint: boolean): Hints => ({
  readOnlyHint,
  destructiveHint,
  idempotentHint,
  openWorldHint
})

const reads = hints(true, false, true, false)
const overwrites = hints(false, true, false, false)
const remote = hints(false, true, false, true)

interface Row {
  readonly title: string
  /** What the tool is listed with when its scope is at this level (absent: not listed). */
  readonly read?: Hints
  readonly write?: Hints
  /** Listed only with --allow-all (nobody can approve it in mcp serve). */
  readonly gated?: true
}

/** Written out by hand, on purpose: this is the contract, not a copy of the code. */
const expected: { readonly [K in Tools.ToolName]: Row } = {
  read_file: { title: "Read file", read: reads, write: reads },
  write_file: { title: "Write file", write: hints(false, true, true, false) },
  edit_file: { title: "Edit file", write: overwrites },
  list_dir: { title: "List directory", read: reads, write: reads },
  glob: { title: "Find files by glob", read: reads, write: reads },
  grep: { title: "Search file contents", read: reads, write: reads },
  move_file: { title: "Move or rename file", write: overwrites },
  delete_file: { title: "Delete file", write: hints(false, true, true, false) },
  bash: { title: "Run bash command", write: hints(false, true, false, true) },
  git_status: { title: "Git status", read: reads, write: reads },
  git_diff: { title: "Git diff", read: reads, write: reads },
  git_log: { title: "Git log", read: reads, write: reads },
  git_show: { title: "Git show", read: reads, write: reads },
  git_commit: { title: "Git commit", write: hints(false, false, false, false), gated: true },
  git_push: { title: "Git push", write: hints(false, true, false, true), gated: true },
  lsp_diagnostics: { title: "Language server diagnostics", read: reads, write: reads },
  lsp_definition: { title: "Go to definition", read: reads, write: reads },
  lsp_references: { title: "Find references", read: reads, write: reads },
  lsp_hover: { title: "Hover information", read: reads, write: reads },
  lsp_implementation: { title: "Go to implementation", read: reads, write: reads },
  lsp_incoming_calls: { title: "Incoming calls", read: reads, write: reads },
  lsp_outgoing_calls: { title: "Outgoing calls", read: reads, write: reads },
  lsp_symbols: { title: "File symbols", read: reads, write: reads },
  lsp_workspace_symbols: { title: "Workspace symbols", read: reads, write: reads },
  repo_map: { title: "Repository map", read: reads, write: reads },
  // Under sql=write a statement may change data: neither read-only nor idempotent.
  sql_query: { title: "Query database", read: reads, write: overwrites },
  sql_schema: { title: "Database schema", read: reads, write: reads },
  sql_connections: { title: "SQL connections", read: reads, write: reads },
  mcp_list: { title: "List MCP servers' tools", read: hints(true, false, true, true), write: hints(true, false, true, true) },
  mcp_call: { title: "Call MCP server tool", write: remote, gated: true },
  mcp_read: { title: "Read MCP resource", read: remote, write: remote, gated: true },
  mcp_prompt: { title: "Get MCP prompt", read: remote, write: remote, gated: true },
  web_fetch: { title: "Fetch web page", read: hints(true, false, true, true), write: hints(true, false, true, true) }
}

const scopes = ["files", "search", "shell", "git", "lsp", "sql", "mcp"] as const

const listing = async (flags: ReadonlyArray<string>) => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const s = await connect(ws.root, flags)
  cleanups.push(() => s.close().catch(() => undefined))
  return (await s.client.listTools()).tools
}

describe("mcp serve tools/list annotations (built binary, SDK client)", () => {
  for (const level of ["off", "read", "write"] satisfies ReadonlyArray<Level>) {
    for (const allowAll of [true, false]) {
      it(`every scope at ${level}${allowAll ? ", --allow-all" : ""}: exactly the expected tools, each with its pinned title and annotations`, async () => {
        const flags = [...(allowAll ? ["--allow-all"] : []), "--all-tools", ...scopes.flatMap((s) => ["--scope", `${s}=${level}`])]
        const tools = await listing(flags)
        const want = Tools.toolNames.flatMap((name) => {
          const row = expected[name]
          const at = level === "off" ? undefined : row[level]
          return at === undefined || (row.gated === true && !allowAll) ? [] : [{ name, title: row.title, annotations: { title: row.title, ...at } }]
        })
        expect(tools.map((t) => ({ name: t.name, title: t.title, annotations: t.annotations }))).toEqual(want)
        if (level === "off") expect(tools).toEqual([])
      })
    }
  }

  it("the defaults (no flags): sql=read lists sql_query as read-only and idempotent; writes and bash are not read-only", async () => {
    const byName = new Map((await listing([])).map((t) => [t.name, t] as const))
    expect(byName.get("sql_query")?.annotations).toEqual({ title: "Query database", ...reads })
    for (const name of ["write_file", "edit_file", "move_file", "delete_file", "bash"]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(false)
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true)
    }
    expect(byName.get("bash")?.annotations?.openWorldHint).toBe(true)
  })

  it("sql=write alone changes sql_query's annotations and nothing else's", async () => {
    const read = await listing(["--scope", "sql=read"])
    const write = await listing(["--scope", "sql=write"])
    expect(write.map((t) => t.name)).toEqual(read.map((t) => t.name))
    const differs = write.filter((t, i) => JSON.stringify(t.annotations) !== JSON.stringify(read[i]?.annotations)).map((t) => t.name)
    expect(differs).toEqual(["sql_query"])
    expect(write.find((t) => t.name === "sql_query")?.annotations).toEqual({ title: "Query database", ...overwrites })
  })
})
