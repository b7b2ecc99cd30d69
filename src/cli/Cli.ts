/**
 * The `minicode` command line (@effect/cli). Composition only: every decision is made by the chain.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Args, Command, Options, ValidationError } from "@effect/cli"
import { Console, Context, Effect, Either, Layer, Option } from "effect"
import * as Allowlist from "../domain/core/Allowlist.js"
import * as Conformance from "../domain/core/Conformance.js"
import type { Decision } from "../domain/core/Decision.js"
import { UsageError } from "../domain/core/Errors.js"
import { Journal } from "../ports/Journal.js"
import * as Kernel from "../kernel/Kernel.js"
import * as RunTurn from "../kernel/RunTurn.js"
import * as Argv from "./Argv.js"
import * as ExitCode from "./ExitCode.js"
import { config } from "./ConfigCommands.js"
import { doctor, version } from "./Doctor.js"
import { allowLocalConfig, common, cwd, json, parseJsonArgs, setup, usage } from "./Setup.js"
import * as Completions from "./Completions.js"
import * as Failure from "./Failure.js"
import * as Help from "./Help.js"
import * as Shown from "./Shown.js"
import * as Usage from "./Usage.js"
import * as Visible from "../domain/core/Visible.js"
import * as Remedy from "../domain/core/Remedy.js"
import * as Layout from "./Layout.js"
import { tools } from "./ToolsCommand.js"
import * as CliProgress from "./CliProgress.js"
import { journalCommands } from "./JournalCommands.js"
import { mcp } from "./McpCommands.js"
import { lspCommand } from "./LspBrokerCommands.js"
import * as CliLayers from "../app/CliLayers.js"
import * as NodeAdapters from "../app/NodeLayers.js"
import * as Runner from "../kernel/Runner.js"

export { version } from "./Doctor.js"

/** What to do after a usage error of `tool NAME`. */
const toolHint = (name: string, tag: string) =>
  tag === "UnknownTool" ? "`minicode tools` lists every tool" : `\`minicode tool ${name} --help\` shows its arguments and an example`

/** `policy explain` exits as the call would: 0 when it would run, 3 when it is denied or needs an approval. */
const printDecision = (decision: Decision, tool: string, asJson: boolean, how = decision.decision === "deny" ? Remedy.remedy({ tool, ...decision }, "cli") : undefined) =>
  Effect.zipRight(
    Effect.sync(() => {
      if (decision.decision !== "allow") process.exitCode = ExitCode.ExitCode.denied
    }),
    Console.log(
    asJson
      ? JSON.stringify({ decision: decision.decision, stage: decision.stage, rule: decision.rule, reason: decision.reason, ...(how === undefined ? {} : { remedy: how }) })
      : `${decision.decision} (${decision.stage}: ${decision.rule})\n${decision.reason}${how === undefined ? "" : `\nTo proceed: ${how}.`}`
    )
  )

const toolName = Args.text({ name: "NAME" }).pipe(Args.withDescription("A built-in tool (`minicode tools` lists them) or an MCP server's SERVER.TOOL"))
const argsJson = Args.text({ name: "ARGS_JSON" }).pipe(
  Args.withDescription(`The arguments as one JSON object, in single quotes: '{"path":"src/index.ts"}' (default {})`),
  Args.withDefault("{}")
)

const tool = Command.make(
  "tool",
  { ...common, json, name: toolName, args: argsJson },
  (flags) =>
    Effect.gen(function* () {
      const { session, adapters } = yield* setup(flags)
      const args = yield* parseJsonArgs(flags.args)
      const request = { tool: flags.name, args }
      const prepared = Runner.prepare(request)
      const mutates = Either.isRight(prepared) && prepared.right.facts.mutates
      const listened = <A, E, R>(call: Effect.Effect<A, E, R>) =>
        CliProgress.around(call, { stream: !flags.json, maxBytes: session.maxOutputBytes ?? Kernel.defaultMaxOutputBytes })
      // A read needs no journal (SQLite stays unloaded); a mutation runs in its own turn, numbered after this
      // session's last one when its first record is written (after the gates) and finalised when the call ends, so
      // `minicode undo` can restore it.
      const outcome = yield* !mutates
        ? Runner.invoke(request).pipe(Effect.provide(Kernel.layer(session, { ...adapters, journal: CliLayers.memoryJournal() })), listened, Effect.either)
        : Effect.scoped(
            Effect.gen(function* () {
              const sessionLayer = Kernel.sessionLayer(session).pipe(Layer.provide(adapters.fileSystem))
              // The journal is opened by the call's first record (NodeLayers.sqliteJournal), after the gates.
              const opened = Context.get(yield* Layer.build(adapters.journal.pipe(Layer.provide(sessionLayer))), Journal)
              const { journal, finalize } = yield* RunTurn.runTurn(opened, "cli")
              const result = yield* Runner.invoke(request).pipe(
                Effect.provide(Kernel.layer(session, { ...adapters, journal: Layer.succeed(Journal, journal) })),
                listened,
                Effect.either
              )
              yield* finalize
              return result
            })
          )
      // What the scans learnt is kept for the next command only when the gates let the call through.
      if (Either.isRight(outcome) || outcome.left._tag !== "ToolDenied") yield* CliLayers.keepScanCache
      if (Either.isRight(outcome)) {
        const out = outcome.right
        yield* flags.json ? Console.log(JSON.stringify({ ok: true, text: out.text, truncated: out.truncated, isError: out.isError === true })) : Console.log(out.text)
        if (out.isError === true) process.exitCode = 1
        return
      }
      const error = outcome.left
      const code = ExitCode.classify(error)
      yield* flags.json
        ? Console.log(JSON.stringify({ ok: false, error: { code, ...error, message: error._tag === "ToolDenied" ? Remedy.told(error, "cli") : error.message } }))
        : Effect.sync(() => void process.stderr.write(`minicode: ${Visible.text(error._tag === "ToolDenied" ? Remedy.told(error, "cli") : error.message)}${code === "usage" ? `\n${toolHint(flags.name, error._tag)}` : ""}\n`))
      process.exitCode = ExitCode.exitOf(code)
    }).pipe(Shown.visible(flags.json))
).pipe(Command.withDescription("Run one tool call through the chain and print its result"))

const explain = Command.make(
  "explain",
  { ...common, json, name: Args.text({ name: "TOOL" }).pipe(Args.withDescription("The tool to decide, as for `minicode tool`")), args: argsJson },
  (flags) =>
    Effect.gen(function* () {
      const { session, adapters } = yield* setup(flags)
      const args = yield* parseJsonArgs(flags.args)
      const decision = yield* Runner.explain({ tool: flags.name, args }, Kernel.gatesLayer(session, { ...adapters, journal: CliLayers.memoryJournal() }))
      yield* printDecision(decision, flags.name, flags.json)
    }).pipe(Shown.visible(flags.json))
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
    }).pipe(Shown.visible(flags.json))
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

export const root = Command.make("minicode").pipe(
  Command.withDescription("A tool kernel for AI coding agents: deterministic gates between the model and your machine"),
  Command.withSubcommands([tool, tools, policyCommand, doctor, config, mcp, lspCommand, ...journalCommands])
)

const parse = Command.run(root, { name: "minicode", version })

/**
 * A console that does not print errors: @effect/cli prints its parser's own text for a usage error ("Expected to
 * find option: '--for'") on Console.error before failing; `run` tells it instead, as a sentence (`Usage`). No
 * command prints through Console.error (failures go through `Failure`, the tool command's through stderr).
 */
const withoutParserText = (console: Console.Console): Console.Console => ({
  ...console,
  error: () => Effect.void,
  unsafe: { ...console.unsafe, error: () => undefined }
})

/** The command line run, a usage error turned into a minicode sentence naming the flag or argument and its choices. */
export const run = (argv: ReadonlyArray<string>) =>
  Console.consoleWith((console) => Console.withConsole(parse(argv), withoutParserText(console))).pipe(
    Effect.catchIf(ValidationError.isValidationError, (error) => {
      const words = argv.slice(2)
      const page = Help.pageFor(words) ?? Help.pages[0]
      const message = "error" in error ? Help.plainText(error.error) : "invalid command line"
      return page === undefined
        ? Effect.fail(new UsageError({ reason: message }))
        : Effect.flatMap(Help.itemsOf(root.descriptor, page.path), (items) => Effect.fail(new UsageError({ reason: Usage.sentence(message, words, page, items) })))
    })
  )

/**
 * The CLI on this process's command line: global options anywhere, help written by minicode (`Help`), failures told
 * plainly, exit codes from the table.
 */
export const main = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) => {
  const normalised = Argv.normalise(argv, env)
  const help = Help.request(normalised.argv.slice(2))
  const shell = Completions.request(normalised.argv.slice(2))
  const told = Failure.reported({ json: normalised.json, debug: normalised.debug })
  if (shell !== undefined) return told(Completions.print(root, shell))
  return help === undefined ? told(run(normalised.argv)) : told(Help.show(root.descriptor, help, Layout.styleOf(env, process.stdout), normalised.json))
}

