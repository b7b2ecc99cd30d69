/**
 * The `minicode` command line (@effect/cli). Composition only: every decision is made by the chain.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Args, Command, Options } from "@effect/cli"
import { Console, Context, Effect, Either, Layer, Option } from "effect"
import * as Allowlist from "../domain/core/Allowlist.js"
import * as Conformance from "../domain/core/Conformance.js"
import type { Decision } from "../domain/core/Decision.js"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Modes from "../domain/core/Modes.js"
import { Journal } from "../ports/Journal.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import * as Kernel from "../kernel/Kernel.js"
import { config } from "./ConfigCommands.js"
import { journalCommands } from "./JournalCommands.js"
import { lspDoctor } from "./LspCommands.js"
import { mcp } from "./McpCommands.js"
import * as CliLayers from "../app/CliLayers.js"
import * as NodeAdapters from "../app/NodeLayers.js"
import * as Runner from "../kernel/Runner.js"

export const version = "0.1.0"

const cwd = Options.directory("cwd").pipe(Options.withDescription("Workspace root (default: the current directory)"), Options.optional)
const workMode = Options.text("work-mode").pipe(Options.withDescription("DISCUSS (read-only, default), PLAN or BUILD"), Options.optional)
const permissionMode = Options.text("permission-mode").pipe(Options.withDescription("AUTO (default) or ASK"), Options.optional)
const policy = Options.text("policy").pipe(Options.withDescription("readonly, plan, allowlist or allow-all"), Options.optional)
const json = Options.boolean("json").pipe(Options.withDescription("Machine-readable output"))
const allowLocalConfig = Options.boolean("allow-local-config").pipe(Options.withDescription("Trust .minicode/config.json in the workspace"))

export const sandbox = Options.choice("sandbox", ["auto", "bwrap", "none"]).pipe(
  Options.withDescription("Run bash in a bubblewrap sandbox: auto (when usable, default), bwrap (or refuse bash), none"),
  Options.optional
)
const common = { cwd, workMode, permissionMode, policy, allowLocalConfig, sandbox }

type CommonFlags = {
  readonly cwd: Option.Option<string>
  readonly workMode: Option.Option<string>
  readonly permissionMode: Option.Option<string>
  readonly policy: Option.Option<string>
  readonly allowLocalConfig: boolean
  readonly sandbox: Option.Option<"auto" | "bwrap" | "none">
}

const usage = (reason: string) => new ToolFailed({ tool: "minicode", reason })

const parseOption = <A>(raw: Option.Option<string>, parse: (s: string) => Either.Either<A, string>) =>
  Option.match(raw, {
    onNone: () => Effect.succeed(undefined),
    onSome: (s) => Either.match(parse(s), { onLeft: (e) => Effect.fail(usage(e)), onRight: (a) => Effect.succeed<A | undefined>(a) })
  })

const parseJsonArgs = (text: string) =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) => usage(`ARGS_JSON is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

/** Session settings and adapters from flags, then the config file, then the product defaults. */
const setup = (flags: CommonFlags) =>
  Effect.gen(function* () {
    const workspace = path.resolve(Option.getOrElse(flags.cwd, () => process.cwd()))
    const loaded = yield* CliLayers.loadConfig(workspace, flags.allowLocalConfig)
    const config = loaded.config
    const session: Kernel.SessionOptions = {
      workspace,
      workMode: (yield* parseOption(flags.workMode, Modes.parseWorkMode)) ?? config.workMode,
      permissionMode: (yield* parseOption(flags.permissionMode, Modes.parsePermissionMode)) ?? config.permissionMode,
      policy: (yield* parseOption(flags.policy, (s) => Modes.parseAccessPolicy(s, { allowUnrestricted: false }))) ?? config.policy,
      home: process.env["HOME"],
      sessionId: "cli",
      bashNetwork: config.bashNetwork,
      toolDeadlineMs: config.toolDeadlineMs
    }
    const configured = yield* Either.match(Allowlist.parseEntries(config.allowlist ?? []), {
      onLeft: (e) => Effect.fail(usage(`config allowlist: ${e}`)),
      onRight: Effect.succeed
    })
    const sql = yield* Either.match(SqlConnection.parseConnections(config.sql), {
      onLeft: (e) => Effect.fail(usage(`config sql: ${e}`)),
      onRight: Effect.succeed
    })
    const adapters: Kernel.Adapters<ToolFailed> = CliLayers.sessionAdapters({
      mcpServers: config.mcpServers ?? {},
      sql,
      lsp: config.lsp ?? {},
      sandbox: Option.getOrElse(flags.sandbox, () => config.sandbox ?? "auto"),
      allowlistFile: loaded.paths.allowlist,
      configured
    })
    return { session, adapters, loaded }
  })

const printDecision = (decision: Decision, asJson: boolean) =>
  Console.log(
    asJson
      ? JSON.stringify({ decision: decision.decision, stage: decision.stage, rule: decision.rule, reason: decision.reason })
      : `${decision.decision} (${decision.stage}: ${decision.rule})\n${decision.reason}`
  )

const tool = Command.make(
  "tool",
  { ...common, json, name: Args.text({ name: "NAME" }), args: Args.text({ name: "ARGS_JSON" }).pipe(Args.withDefault("{}")) },
  (flags) =>
    Effect.gen(function* () {
      const { session, adapters } = yield* setup(flags)
      const args = yield* parseJsonArgs(flags.args)
      const request = { tool: flags.name, args }
      const prepared = Runner.prepare(request)
      const mutates = Either.isRight(prepared) && prepared.right.facts.mutates
      // A read needs no journal (SQLite stays unloaded); a mutation runs in its own turn, numbered after this
      // session's last one and finalised when the call ends, so `minicode undo` can restore it.
      const outcome = yield* !mutates
        ? Runner.invoke(request).pipe(Effect.provide(Kernel.layer(session, { ...adapters, journal: CliLayers.memoryJournal() })), Effect.either)
        : Effect.scoped(
            Effect.gen(function* () {
              const sessionLayer = Kernel.sessionLayer(session).pipe(Layer.provide(adapters.fileSystem))
              const journalContext = yield* Layer.build(adapters.journal.pipe(Layer.provide(sessionLayer)))
              const journal = Context.get(journalContext, Journal)
              const turn = (yield* journal.lastTurn("cli").pipe(Effect.orElseSucceed(() => 0))) + 1
              const result = yield* Runner.invoke(request).pipe(
                Effect.provide(Kernel.layer({ ...session, turn }, { ...adapters, journal: Layer.succeedContext(journalContext) })),
                Effect.either
              )
              yield* journal.finalizeTurn("cli", turn).pipe(Effect.ignore)
              return result
            })
          )
      if (Either.isRight(outcome)) {
        const out = outcome.right
        yield* flags.json ? Console.log(JSON.stringify({ ok: true, text: out.text, truncated: out.truncated, isError: out.isError === true })) : Console.log(out.text)
        if (out.isError === true) process.exitCode = 1
        return
      }
      const error = outcome.left
      yield* flags.json ? Console.log(JSON.stringify({ ok: false, error: { ...error, message: error.message } })) : Console.error(`minicode: ${error.message}`)
      process.exitCode = error._tag === "ToolDenied" ? 3 : 1
    })
).pipe(Command.withDescription("Run one tool call through the chain and print its result"))

const explain = Command.make(
  "explain",
  { ...common, json, name: Args.text({ name: "TOOL" }), args: Args.text({ name: "ARGS_JSON" }).pipe(Args.withDefault("{}")) },
  (flags) =>
    Effect.gen(function* () {
      const { session, adapters } = yield* setup(flags)
      const args = yield* parseJsonArgs(flags.args)
      const decision = yield* Runner.explain({ tool: flags.name, args }, Kernel.gatesLayer(session, { ...adapters, journal: CliLayers.memoryJournal() }))
      yield* printDecision(decision, flags.json)
    })
).pipe(Command.withDescription("Decide a call without executing it: decision, stage, rule, reason"))

const junit = Options.file("junit").pipe(Options.withDescription("Also write a JUnit XML report here"), Options.optional)

const conformance = Command.make(
  "conformance",
  { cwd, json, junit, allowLocalConfig, cases: Args.file({ name: "CASES.jsonl", exists: "yes" }) },
  (flags) =>
    Effect.gen(function* () {
      const workspace = path.resolve(Option.getOrElse(flags.cwd, () => process.cwd()))
      const text = yield* Effect.try({
        try: () => fs.readFileSync(flags.cases, "utf8"),
        catch: (cause) => usage(`cannot read ${flags.cases}: ${String(cause)}`)
      })
      const results: Array<Conformance.Result> = []
      for (const line of Conformance.parse(text)) {
        const result = line._tag === "Malformed" ? line.result : yield* decideCase(workspace, line.case)
        results.push(result)
        yield* flags.json
          ? Console.log(JSON.stringify(result))
          : Console.log(`${result.pass ? "PASS" : "FAIL"} ${result.name}: expected ${result.expect}, got ${result.got} (${result.stage}: ${result.rule})${result.pass ? "" : ` — ${result.reason}`}`)
      }
      if (Option.isSome(flags.junit)) {
        const file = flags.junit.value
        yield* Effect.try({
          try: () => fs.writeFileSync(file, Conformance.junit(results, path.basename(flags.cases))),
          catch: (cause) => usage(`cannot write ${file}: ${String(cause)}`)
        })
      }
      yield* Console.log(Conformance.summary(results))
      if (results.some((r) => !r.pass)) process.exitCode = 1
    })
).pipe(Command.withDescription("Check expected decisions (JSON lines) against the gates; exits 1 on any failure"))

/** One case: its own modes and allowlist, decided without executing anything. */
const decideCase = (workspace: string, c: Conformance.Case) =>
  Effect.gen(function* () {
    const name = c.name ?? `${c.tool} ${JSON.stringify(c.args)}`
    const entries = Allowlist.parseEntries(c.allowlist ?? [])
    const base = { name, tool: c.tool, expect: c.expect }
    if (Either.isLeft(entries)) {
      return { ...base, got: "error", stage: "case", rule: "case.allowlist", reason: entries.left, pass: false }
    }
    const session: Kernel.SessionOptions = {
      workspace,
      workMode: c.workMode,
      permissionMode: c.permissionMode,
      policy: c.policy,
      home: process.env["HOME"],
      sessionId: "conformance",
      sqlDialect: c.dialect === "postgresql" ? "postgres" : c.dialect
    }
    const adapters = NodeAdapters.adapters({ unrestricted: c.policy === "unrestricted", allowlist: entries.right, journal: "memory" })
    return yield* Runner.explain({ tool: c.tool, args: c.args }, Kernel.gatesLayer(session, adapters)).pipe(
      Effect.map((d): Conformance.Result => ({ ...base, got: d.decision, stage: d.stage, rule: d.rule, reason: d.reason, pass: d.decision === c.expect })),
      Effect.catchAll((e) => Effect.succeed<Conformance.Result>({ ...base, got: "error", stage: "case", rule: `error.${e._tag}`, reason: e.message, pass: false }))
    )
  })

const policyCommand = Command.make("policy").pipe(
  Command.withDescription("Explain decisions and check them in CI"),
  Command.withSubcommands([explain, conformance])
)

const doctor = Command.make("doctor", { cwd, json, allowLocalConfig, sandbox }, (flags) =>
  Effect.gen(function* () {
    const workspace = path.resolve(Option.getOrElse(flags.cwd, () => process.cwd()))
    const loaded = yield* CliLayers.loadConfig(workspace, flags.allowLocalConfig).pipe(Effect.either)
    const config = Either.isRight(loaded) ? loaded.right.config : {}
    const sandboxMode = Option.getOrElse(flags.sandbox, () => config.sandbox ?? "auto")
    const lsp = yield* lspDoctor(workspace, config.lsp ?? {})
    const report = {
      minicode: version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      workspace,
      workspaceExists: fs.existsSync(workspace),
      config: {
        global: CliLayers.configPaths(workspace).global,
        globalFound: Either.isRight(loaded) && loaded.right.globalFound,
        local: CliLayers.configPaths(workspace).local,
        localFound: Either.isRight(loaded) && loaded.right.localFound,
        localUsed: Either.isRight(loaded) && loaded.right.localUsed,
        error: Either.isLeft(loaded) ? loaded.left.message : null
      },
      defaults: { workMode: config.workMode ?? "DISCUSS", permissionMode: config.permissionMode ?? "AUTO", policy: config.policy ?? "default" },
      servers: {
        mcp: Object.keys(config.mcpServers ?? {}),
        lsp: lsp.rows,
        sql: Object.keys(config.sql ?? {})
      },
      bashGuard: "tree-sitter-bash (commands are parsed and judged on their syntax tree)",
      sandbox: NodeAdapters.sandboxLine(sandboxMode, yield* NodeAdapters.sandboxStatus({ mode: sandboxMode }))
    }
    if (flags.json) return yield* Console.log(JSON.stringify(report, null, 2))
    yield* Console.log(
      [
        `minicode ${report.minicode} on node ${report.node} (${report.platform})`,
        `workspace: ${report.workspace}${report.workspaceExists ? "" : " (missing!)"}`,
        `global config: ${report.config.global} ${report.config.globalFound ? "(found)" : "(none)"}`,
        `local config: ${report.config.local} ${report.config.localFound ? (report.config.localUsed ? "(found, used)" : "(found, ignored: pass --allow-local-config to trust it)") : "(none)"}`,
        ...(report.config.error === null ? [] : [`config error: ${report.config.error}`]),
        `defaults: work mode ${report.defaults.workMode}, permission mode ${report.defaults.permissionMode}, policy ${report.defaults.policy}`,
        `MCP servers: ${report.servers.mcp.length === 0 ? "none" : report.servers.mcp.join(", ")}`,
        ...(lsp.lines.length === 0 ? ["language servers: none"] : lsp.lines),
        `SQL connections: ${report.servers.sql.length === 0 ? "none" : report.servers.sql.join(", ")}`,
        `bash guard: ${report.bashGuard}`,
        report.sandbox
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Versions, workspace, config files and configured servers"))

export const root = Command.make("minicode").pipe(
  Command.withDescription("A tool kernel for AI coding agents: deterministic gates between the model and your machine"),
  Command.withSubcommands([tool, policyCommand, doctor, config, mcp, ...journalCommands])
)

export const run = Command.run(root, { name: "minicode", version })

