/**
 * The tool catalog: one argument Schema per tool (the single source of the JSON Schema that MCP advertises),
 * and what each call touches: capability, whether it mutates, whether it is gated, which paths it reads or writes.
 */
import { Either, ParseResult, Schema } from "effect"
import type { Access } from "../jail/Jail.js"
import * as ExactName from "../files/ExactName.js"

export type Capability = "read" | "write" | "exec" | "network" | "external"
export type Scope = "files" | "search" | "shell" | "git" | "lsp" | "sql" | "mcp"

/** A path, refused when it cannot name a file exactly as sent (`ExactName`: lone surrogates, U+FFFD). */
const Path = (description: string) =>
  Schema.String.pipe(Schema.filter((p) => ExactName.problem(p) ?? true, { jsonSchema: {} })).annotations({ description })
const SqlValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
const PositiveInt = (description: string) => Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ description })
const NonNegativeInt = (description: string) =>
  Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({ description })
const Flag = (description: string) => Schema.optional(Schema.Boolean.annotations({ description, default: false }))

/**
 * git_push's words reach git's command line on the host. A remote is the name of one configured in the repository
 * (never a URL or a path: those push the history, secrets and all, wherever the model says); a branch is a ref or
 * `src:dst`, never an option (`--receive-pack=…`), a force (`+main`) or a deletion (`:main`).
 */
const RemoteName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, {
    message: () => "remote must be the name of a remote configured in this repository (like origin), not a URL or a path"
  })
).annotations({ description: "A configured remote's name (default: the branch's remote, else origin)" })
const PushRef = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_][A-Za-z0-9._/@{}^~-]*(:[A-Za-z0-9_][A-Za-z0-9._/-]*)?$/, {
    message: () => "branch must be a branch or src:dst refspec, without a leading -, + (force) or : (delete)"
  })
).annotations({ description: "Branch or src:dst refspec (default the current branch)" })

const Position = {
  path: Path("File to ask about, relative to the workspace"),
  line: Schema.optional(PositiveInt("1-based line")),
  character: Schema.optional(PositiveInt("1-based column, in characters (Unicode code points); past the end of the line means its end")),
  symbol: Schema.optional(Schema.String.annotations({ description: "A symbol name, instead of line/character (found in code, never in comments or strings)" }))
}

export const Args = {
  read_file: Schema.Struct({
    path: Path("File to read, relative to the workspace"),
    offset: Schema.optional(PositiveInt("First line to return (1-based)")),
    limit: Schema.optional(PositiveInt("How many lines to return"))
  }),
  write_file: Schema.Struct({
    path: Path("File to create or replace"),
    content: Schema.String.annotations({ description: "The whole new content" })
  }),
  edit_file: Schema.Struct({
    path: Path("File to edit"),
    old_string: Schema.String.annotations({ description: "Exact text to replace; must match once unless replace_all" }),
    new_string: Schema.String.annotations({ description: "Replacement text" }),
    replace_all: Flag("Replace every occurrence")
  }),
  list_dir: Schema.Struct({ path: Path("Directory to list") }),
  glob: Schema.Struct({
    pattern: Schema.String.annotations({ description: "Glob such as src/**/*.ts" }),
    path: Schema.optional(Path("Directory to search from (default: the workspace)"))
  }),
  grep: Schema.Struct({
    pattern: Schema.String.annotations({ description: "JavaScript regular expression" }),
    path: Schema.optional(Path("File or directory to search (default: the workspace)")),
    glob: Schema.optional(Schema.String.annotations({ description: "Only files matching this glob" })),
    ignore_case: Flag("Case-insensitive match")
  }),
  move_file: Schema.Struct({
    from: Path("Existing file or directory"),
    to: Path("New path"),
    overwrite: Flag("Replace an existing destination")
  }),
  delete_file: Schema.Struct({ path: Path("File to delete") }),
  bash: Schema.Struct({
    command: Schema.String.annotations({ description: "Shell command (bash syntax)" }),
    timeout_ms: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 3_600_000)).annotations({ description: "Timeout in ms (default 120000)", default: 120_000 })
    ),
    cwd: Schema.optional(Path("Working directory inside the workspace")),
    network: Flag("Request network access for this command (a separate permission)")
  }),
  git_status: Schema.Struct({}),
  git_diff: Schema.Struct({ staged: Flag("Show staged changes"), path: Schema.optional(Path("Limit to this path")) }),
  git_log: Schema.Struct({
    limit: Schema.optional(PositiveInt("How many commits (default 20)").annotations({ default: 20 })),
    path: Schema.optional(Path("Limit to this path"))
  }),
  git_show: Schema.Struct({
    rev: Schema.String.annotations({ description: "Revision" }),
    path: Schema.optional(Path("Limit to this path"))
  }),
  git_commit: Schema.Struct({
    message: Schema.String.annotations({ description: "Commit message" }),
    paths: Schema.Array(Path("Path to stage")).annotations({ description: "Paths to stage and commit" })
  }),
  git_push: Schema.Struct({
    remote: Schema.optional(RemoteName),
    branch: Schema.optional(PushRef)
  }),
  lsp_diagnostics: Schema.Struct({ path: Position.path }),
  lsp_definition: Schema.Struct(Position),
  lsp_references: Schema.Struct({ ...Position, include_declaration: Flag("Include the declaration") }),
  lsp_hover: Schema.Struct(Position),
  lsp_implementation: Schema.Struct(Position),
  lsp_incoming_calls: Schema.Struct(Position),
  lsp_outgoing_calls: Schema.Struct(Position),
  lsp_symbols: Schema.Struct({ path: Position.path, all: Flag("Also list locals and callbacks inside functions (left out by default)") }),
  lsp_workspace_symbols: Schema.Struct({ query: Schema.String.annotations({ description: "Symbol name or prefix" }) }),
  repo_map: Schema.Struct({
    path: Schema.optional(Path("Directory to map (default: the workspace)")),
    max_chars: Schema.optional(PositiveInt("Size budget of the map")),
    focus: Schema.optional(
      Schema.Array(Schema.String).annotations({ description: "Files or folders to rank around (PageRank personalised toward them and what they use)" })
    )
  }),
  sql_query: Schema.Struct({
    sql: Schema.String.annotations({ description: "One SQL statement" }),
    connection: Schema.optional(
      Schema.String.annotations({ description: "A configured connection name or a workspace .db/.sqlite file" })
    ),
    params: Schema.optional(
      Schema.Union(
        Schema.Array(SqlValue),
        Schema.Record({ key: Schema.String, value: SqlValue })
      ).annotations({ description: "Bound parameters: an array ($1, ?), or for SQLite an object of named ones (:id, @id, $id)" })
    ),
    max_rows: Schema.optional(PositiveInt("Row cap (default 200)").annotations({ default: 200 })),
    max_cell: Schema.optional(
      Schema.Int.pipe(Schema.between(16, 20_000)).annotations({ description: "Characters shown per cell, 16..20000 (default 120); raise it to read view definitions or EXPLAIN (FORMAT JSON)", default: 120 })
    ),
    write: Flag("Allow a data-modifying statement (needs a connection configured with --allow-write)"),
    timeout_ms: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 600_000)).annotations({
        description: "Time limit in ms, 1..600000 (default: the connection's --timeout-ms, else 30000); the query is stopped when it passes"
      })
    )
  }),
  sql_schema: Schema.Struct({
    connection: Schema.optional(
      Schema.String.annotations({ description: "A configured connection name or a workspace .db/.sqlite file (default: the only configured one)" })
    ),
    table: Schema.optional(Schema.String.annotations({ description: "One table or view in detail (columns, keys, indexes); without it, every table and view" }))
  }),
  sql_connections: Schema.Struct({}),
  mcp_list: Schema.Struct({ server: Schema.optional(Schema.String.annotations({ description: "Server id" })) }),
  mcp_call: Schema.Struct({
    server: Schema.String.annotations({ description: "Server id" }),
    tool: Schema.String.annotations({ description: "Tool name on that server" }),
    arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "The tool's arguments, as its input schema says (mcp_list shows it)" }))
  }),
  mcp_read: Schema.Struct({
    server: Schema.String.annotations({ description: "Server id" }),
    uri: Schema.String.annotations({ description: "Resource URI" })
  }),
  mcp_prompt: Schema.Struct({
    server: Schema.String.annotations({ description: "Server id" }),
    name: Schema.String.annotations({ description: "Prompt name" }),
    arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }).annotations({ description: "The prompt's arguments, each a string" }))
  }),
  web_fetch: Schema.Struct({
    url: Schema.String.annotations({ description: "http(s) URL to GET" }),
    max_bytes: Schema.optional(NonNegativeInt("Body cap in bytes"))
  })
} as const

export type ToolName = keyof typeof Args
export const toolNames: ReadonlyArray<ToolName> = Object.keys(Args).filter((k): k is ToolName => Object.hasOwn(Args, k))

const member = <K extends ToolName>(tool: K) => Schema.Struct({ tool: Schema.Literal(tool), args: Args[tool] })

/** Every built-in call, discriminated by `tool`: decoding picks the member by its literal. */
export const BuiltinCall = Schema.Union(
  member("read_file"),
  member("write_file"),
  member("edit_file"),
  member("list_dir"),
  member("glob"),
  member("grep"),
  member("move_file"),
  member("delete_file"),
  member("bash"),
  member("git_status"),
  member("git_diff"),
  member("git_log"),
  member("git_show"),
  member("git_commit"),
  member("git_push"),
  member("lsp_diagnostics"),
  member("lsp_definition"),
  member("lsp_references"),
  member("lsp_hover"),
  member("lsp_implementation"),
  member("lsp_incoming_calls"),
  member("lsp_outgoing_calls"),
  member("lsp_symbols"),
  member("lsp_workspace_symbols"),
  member("repo_map"),
  member("sql_query"),
  member("sql_schema"),
  member("sql_connections"),
  member("mcp_list"),
  member("mcp_call"),
  member("mcp_read"),
  member("mcp_prompt"),
  member("web_fetch")
)
export type BuiltinCall = typeof BuiltinCall.Type

export interface DynamicCall {
  readonly tool: "mcp_dynamic"
  readonly name: string
  readonly server: string
  readonly serverTool: string
  readonly args: Readonly<Record<string, unknown>>
}

export type ToolCall = BuiltinCall | DynamicCall

export type CallOf<K extends ToolCall["tool"]> = Extract<ToolCall, { tool: K }>

export interface PathUse {
  readonly field: string
  readonly path: string
  readonly access: Access
  /** For a move's source: the field naming where it lands (its contents are judged there too). */
  readonly landsAt?: string
  /**
   * The tool judges what it finds below this path itself (grep drops protected aliases per file, glob and list_dir
   * show names only, bash's sandbox masks): the jail need not look for aliases of a folder here.
   */
  readonly judgesContents?: boolean
}

interface Static {
  /** A short human title, shown by MCP clients (`tools/list` `title` and `annotations.title`). */
  readonly title: string
  readonly scope: Scope
  readonly description: string
  readonly capability: Capability
  readonly mutates: boolean
  readonly gated: boolean
}

const info: { readonly [K in ToolName]: Static } = {
  read_file: { title: "Read file", scope: "files", capability: "read", mutates: false, gated: false, description: "Read a text file with line numbers" },
  write_file: { title: "Write file", scope: "files", capability: "write", mutates: true, gated: false, description: "Create or replace a file" },
  edit_file: { title: "Edit file", scope: "files", capability: "write", mutates: true, gated: false, description: "Replace an exact string in a file" },
  list_dir: { title: "List directory", scope: "files", capability: "read", mutates: false, gated: false, description: "List a directory: folders first, then files, each by name (folder/, link@); at most 1000 entries, the rest counted" },
  glob: { title: "Find files by glob", scope: "search", capability: "read", mutates: false, gated: false, description: "Find files by glob, honouring .gitignore (.git never entered, symlinks listed, not followed); sorted by path, at most 1000, the rest counted" },
  grep: { title: "Search file contents", scope: "search", capability: "read", mutates: false, gated: false, description: "Search file contents by regular expression, honouring .gitignore (secrets, .git and symlinks never searched; big files searched whole; matching binary files named); file:line:text sorted by path then line, at most 500, the rest counted" },
  move_file: { title: "Move or rename file", scope: "files", capability: "write", mutates: true, gated: false, description: "Move or rename a file or directory (never .git, nor a folder that holds a protected file)" },
  delete_file: { title: "Delete file", scope: "files", capability: "write", mutates: true, gated: false, description: "Delete a file (never anything under .git)" },
  bash: { title: "Run bash command", scope: "shell", capability: "exec", mutates: true, gated: false, description: "Run a bash command in the workspace" },
  git_status: { title: "Git status", scope: "git", capability: "read", mutates: false, gated: false, description: "git status" },
  git_diff: { title: "Git diff", scope: "git", capability: "read", mutates: false, gated: false, description: "git diff" },
  git_log: { title: "Git log", scope: "git", capability: "read", mutates: false, gated: false, description: "git log" },
  git_show: { title: "Git show", scope: "git", capability: "read", mutates: false, gated: false, description: "git show" },
  git_commit: { title: "Git commit", scope: "git", capability: "write", mutates: true, gated: true, description: "Stage the given paths and commit" },
  git_push: { title: "Git push", scope: "git", capability: "network", mutates: true, gated: true, description: "Push the current branch" },
  lsp_diagnostics: { title: "Language server diagnostics", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Diagnostics for a file from its language server" },
  lsp_definition: { title: "Go to definition", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Go to definition" },
  lsp_references: { title: "Find references", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Find references" },
  lsp_hover: { title: "Hover information", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Hover information" },
  lsp_implementation: { title: "Go to implementation", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Go to the implementations of an interface, abstract member or method" },
  lsp_incoming_calls: { title: "Incoming calls", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Who calls this function or method (call hierarchy), with each call site" },
  lsp_outgoing_calls: { title: "Outgoing calls", scope: "lsp", capability: "read", mutates: false, gated: false, description: "What this function or method calls (call hierarchy), with each call site" },
  lsp_symbols: { title: "File symbols", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Symbols of a file" },
  lsp_workspace_symbols: { title: "Workspace symbols", scope: "lsp", capability: "read", mutates: false, gated: false, description: "Search symbols in the workspace" },
  repo_map: { title: "Repository map", scope: "search", capability: "read", mutates: false, gated: false, description: "Outline of the workspace's important symbols, ranked by references (PageRank, focus: [paths] to rank around given files); says which files it left out and why" },
  sql_query: { title: "Query database", scope: "sql", capability: "read", mutates: false, gated: false, description: "Query a database (read-only unless write is set and allowed)" },
  sql_schema: { title: "Database schema", scope: "sql", capability: "read", mutates: false, gated: false, description: "Tables, views, columns with types, nullability and defaults, primary and foreign keys, indexes; one table in detail" },
  sql_connections: { title: "SQL connections", scope: "sql", capability: "read", mutates: false, gated: false, description: "The configured SQL connections: name, engine and mode" },
  mcp_list: { title: "List MCP servers' tools", scope: "mcp", capability: "read", mutates: false, gated: false, description: "Tools, resources and prompts of the configured MCP servers" },
  mcp_call: { title: "Call MCP server tool", scope: "mcp", capability: "external", mutates: true, gated: true, description: "Call a tool on an MCP server" },
  mcp_read: { title: "Read MCP resource", scope: "mcp", capability: "external", mutates: false, gated: true, description: "Read a resource from an MCP server" },
  mcp_prompt: { title: "Get MCP prompt", scope: "mcp", capability: "external", mutates: false, gated: true, description: "Get a prompt from an MCP server" },
  web_fetch: { title: "Fetch web page", scope: "mcp", capability: "network", mutates: false, gated: false, description: "GET a public URL as readable text" }
}

export const staticInfo = (name: ToolName): Static => info[name]

/**
 * One example call per tool, kept beside its definition: `minicode tools` and `minicode tool NAME --help` show it,
 * and a test decodes each against its tool's Schema (the type here checks it too), so an example cannot rot.
 */
const examples: { readonly [K in ToolName]: Schema.Schema.Encoded<(typeof Args)[K]> } = {
  read_file: { path: "src/index.ts", offset: 1, limit: 40 },
  write_file: { path: "notes/todo.md", content: "- write the tests\n" },
  edit_file: { path: "src/index.ts", old_string: "const x = 1", new_string: "const x = 2" },
  list_dir: { path: "src" },
  glob: { pattern: "src/**/*.ts" },
  grep: { pattern: "TODO|FIXME", glob: "*.ts", ignore_case: true },
  move_file: { from: "src/old.ts", to: "src/new.ts" },
  delete_file: { path: "tmp/scratch.txt" },
  bash: { command: "npm test", timeout_ms: 300_000 },
  git_status: {},
  git_diff: { staged: true },
  git_log: { limit: 5, path: "src" },
  git_show: { rev: "HEAD~1", path: "README.md" },
  git_commit: { message: "Fix the parser", paths: ["src/parser.ts"] },
  git_push: { remote: "origin", branch: "main" },
  lsp_diagnostics: { path: "src/index.ts" },
  lsp_definition: { path: "src/index.ts", symbol: "main" },
  lsp_references: { path: "src/index.ts", line: 12, character: 7, include_declaration: true },
  lsp_hover: { path: "src/index.ts", line: 12, character: 7 },
  lsp_implementation: { path: "src/store.ts", symbol: "Store" },
  lsp_incoming_calls: { path: "src/parser.ts", symbol: "parse" },
  lsp_outgoing_calls: { path: "src/index.ts", symbol: "main" },
  lsp_symbols: { path: "src/index.ts" },
  lsp_workspace_symbols: { query: "parse" },
  repo_map: { max_chars: 8000, focus: ["src/cli"] },
  sql_query: { connection: "app.db", sql: "SELECT id, name FROM users WHERE id = ?", params: [1] },
  sql_schema: { connection: "app.db", table: "users" },
  sql_connections: {},
  mcp_list: { server: "github" },
  mcp_call: { server: "github", tool: "search_issues", arguments: { query: "is:open label:bug" } },
  mcp_read: { server: "docs", uri: "file:///guide.md" },
  mcp_prompt: { server: "docs", name: "summarise", arguments: { topic: "setup" } },
  web_fetch: { url: "https://example.com/", max_bytes: 100_000 }
}

/** The example call of `name`'s arguments (encoded, as a caller sends them). */
export const exampleOf = (name: ToolName): Readonly<Record<string, unknown>> => examples[name]

/** What the gates need to know about a decoded call. */
export interface Facts {
  readonly call: ToolCall
  readonly scope: Scope
  readonly capability: Capability
  readonly mutates: boolean
  readonly gated: boolean
  readonly paths: ReadonlyArray<PathUse>
}

const use = (field: string, path: string | undefined, access: Access, judgesContents = false): ReadonlyArray<PathUse> =>
  path === undefined ? [] : [{ field, path, access, ...(judgesContents ? { judgesContents } : {}) }]

const sqlFile = /\.(db|sqlite|sqlite3|db3)$/i

export const facts = (call: ToolCall): Facts => {
  if (call.tool === "mcp_dynamic") {
    return { call, scope: "mcp", capability: "external", mutates: true, gated: true, paths: [] }
  }
  const base = info[call.tool]
  const make = (paths: ReadonlyArray<PathUse>, over: Partial<Static> = {}): Facts => ({
    call,
    scope: base.scope,
    capability: over.capability ?? base.capability,
    mutates: over.mutates ?? base.mutates,
    gated: over.gated ?? base.gated,
    paths
  })
  switch (call.tool) {
    case "list_dir":
      return make(use("path", call.args.path, "read", true))
    case "read_file":
    case "lsp_diagnostics":
    case "lsp_definition":
    case "lsp_references":
    case "lsp_hover":
    case "lsp_implementation":
    case "lsp_incoming_calls":
    case "lsp_outgoing_calls":
    case "lsp_symbols":
      return make(use("path", call.args.path, "read"))
    case "write_file":
    case "edit_file":
      return make(use("path", call.args.path, "write"))
    case "delete_file":
      return make(use("path", call.args.path, "structure"))
    case "move_file":
      return make([{ field: "from", path: call.args.from, access: "structure", landsAt: "to" }, ...use("to", call.args.to, "structure")])
    case "glob":
    case "grep":
      return make(use("path", call.args.path ?? ".", "read", true))
    case "git_diff":
    case "git_log":
    case "git_show":
    case "repo_map":
      return make(use("path", call.args.path ?? (call.tool === "repo_map" ? "." : undefined), "read"))
    case "bash":
      return make(use("cwd", call.args.cwd, "read", true), call.args.network === true ? { capability: "network" } : {})
    case "git_commit":
      return make(call.args.paths.map((path, i) => ({ field: `paths[${i}]`, path, access: "write" as const })))
    case "sql_schema": {
      const conn = call.args.connection
      return make(conn !== undefined && sqlFile.test(conn) ? use("connection", conn, "read") : [])
    }
    case "sql_query": {
      const write = call.args.write === true
      const conn = call.args.connection
      const paths = conn !== undefined && sqlFile.test(conn) ? use("connection", conn, write ? "write" : "read") : []
      return make(paths, write ? { capability: "write", mutates: true } : {})
    }
    default:
      return make([])
  }
}

/** `server.tool`: the dynamic form of an MCP server's tool. Server ids have no dots; tool names may. */
export const dynamicName = /^([A-Za-z0-9_][A-Za-z0-9_-]*)\.(.+)$/

const formatIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ")

export type DecodeFailure =
  | { readonly _tag: "UnknownTool"; readonly tool: string }
  | { readonly _tag: "InvalidArguments"; readonly tool: string; readonly details: string }

const decodeBuiltin = Schema.decodeUnknownEither(BuiltinCall, { onExcessProperty: "error", errors: "all" })

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Decodes `{tool, args}` from untrusted input once, at the edge. Pure. */
export const decode = (tool: string, args: unknown): Either.Either<ToolCall, DecodeFailure> => {
  if (Object.hasOwn(Args, tool)) {
    return decodeBuiltin({ tool, args: args ?? {} }).pipe(
      Either.mapLeft((error): DecodeFailure => ({ _tag: "InvalidArguments", tool, details: formatIssues(error) }))
    )
  }
  const dynamic = dynamicName.exec(tool)
  if (dynamic !== null && dynamic[1] !== undefined && dynamic[2] !== undefined) {
    if (args !== undefined && !isRecord(args)) {
      return Either.left({ _tag: "InvalidArguments", tool, details: "arguments must be a JSON object" })
    }
    return Either.right({ tool: "mcp_dynamic", name: tool, server: dynamic[1], serverTool: dynamic[2], args: args ?? {} })
  }
  return Either.left({ _tag: "UnknownTool", tool })
}

/**
 * The name an approval is saved and matched under: an MCP tool is `server.tool` whichever way it was called
 * (`mcp_call` or the dynamic tool), a resource read or prompt is `mcp_read@server` / `mcp_prompt@server`.
 * Never a name that covers a whole server or every server.
 */
export const approvalName = (call: ToolCall): string => {
  switch (call.tool) {
    case "mcp_call":
      return `${call.args.server}.${call.args.tool}`
    case "mcp_read":
    case "mcp_prompt":
      return `${call.tool}@${call.args.server}`
    default:
      return nameOf(call)
  }
}

/** The public name of a call (dynamic MCP tools keep their `server.tool` name). */
export const nameOf = (call: ToolCall): string => (call.tool === "mcp_dynamic" ? call.name : call.tool)
