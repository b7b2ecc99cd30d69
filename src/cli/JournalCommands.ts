/**
 * The journal on the command line: `journal` lists records, `recover` prints the recovery plan (never acts) and
 * `recover resolve` records a human's verdict, `checkpoints` lists turns, `undo`/`redo` restore a turn's files.
 * All of them work on `<workspace>/.minicode/state.db`.
 */
import * as path from "node:path"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import * as StagedRecovery from "../app/StagedRecovery.js"
import { ToolFailed, UsageError } from "../domain/core/Errors.js"
import * as RecoveryText from "../domain/journal/RecoveryText.js"
import { Checkpoints } from "../ports/Checkpoints.js"
import { Journal, type JournalError, type JournalRecord, type JournalState } from "../ports/Journal.js"
import * as Undo from "../tools/UndoTool.js"
import * as ExitCode from "./ExitCode.js"
import * as Shown from "./Shown.js"
import { shownPath } from "../domain/files/ShownPath.js"

const cwd = Options.directory("cwd").pipe(Options.withDescription("Workspace root (default: the current directory)"), Options.optional)
const json = Options.boolean("json").pipe(Options.withDescription("Machine-readable output"))
const turn = Options.integer("turn").pipe(Options.withDescription("Turn number"), Options.optional)
const session = Options.text("session").pipe(Options.withDescription("Session (cli, mcp-server, api…); default: the newest turn's"), Options.optional)

const workspaceOf = (flag: Option.Option<string>) => path.resolve(Option.getOrElse(flag, () => process.cwd()))

const withJournal = <A, E, R>(workspace: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(CliLayers.workspaceJournal(workspace)))

const toFailure = (e: { readonly message: string }) => new ToolFailed({ tool: "journal", reason: e.message })

/** A resolve the journal refuses is the operator's mistake (a wrong or settled SEQ): said as such, exit 2. */
const refusedResolve = (e: JournalError) =>
  new UsageError({ reason: `cannot resolve: ${e.reason}; \`minicode recover\` lists the records that need a verdict` })

const stamp = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19)

const recordLine = (r: JournalRecord) =>
  `#${r.seq} ${stamp(r.createdAt)} ${r.session}/${r.turn} ${r.tool} ${r.state}${r.remote ? " (remote)" : ""}${
    r.paths.length > 0 ? ` ${r.paths.map(shownPath).join(" ")}` : ""
  }${r.summary === undefined ? "" : ` $ ${r.summary.replace(/\s*\n\s*/g, " ⏎ ")}`}${r.note === null ? "" : ` — ${r.note}`}${r.finalized ? "" : " [open turn]"}`

const states: ReadonlyArray<JournalState> = ["pending", "committed", "failed", "unknown"]

const journal = Command.make(
  "journal",
  { cwd, json, turn, state: Options.choice("state", states).pipe(Options.withDescription("Only records in this state"), Options.optional) },
  (flags) =>
    withJournal(
      workspaceOf(flags.cwd),
      Effect.gen(function* () {
        const j = yield* Journal
        const records = yield* j
          .list({
            ...(Option.isSome(flags.turn) ? { turn: flags.turn.value } : {}),
            ...(Option.isSome(flags.state) ? { state: flags.state.value } : {})
          })
          .pipe(Effect.mapError(toFailure))
        if (flags.json) return yield* Console.log(JSON.stringify(records, null, 2))
        yield* Console.log(records.length === 0 ? "no records" : records.map(recordLine).join("\n"))
      })
    ).pipe(Shown.visible(flags.json))
).pipe(Command.withDescription("List journal records (mutations, before and after their effect)"))

const resolve = Command.make(
  "resolve",
  {
    cwd,
    seq: Args.integer({ name: "SEQ" }),
    outcome: Args.choice([["applied", "applied"], ["absent", "absent"]] as const, { name: "applied|absent" })
  },
  (flags) =>
    withJournal(
      workspaceOf(flags.cwd),
      Effect.gen(function* () {
        const j = yield* Journal
        const record = yield* j.resolve(flags.seq, flags.outcome, "cli").pipe(Effect.mapError(refusedResolve))
        yield* Console.log(`#${flags.seq} resolved as ${flags.outcome} (journaled as #${record.seq})`)
      })
    ).pipe(Shown.visible(false))
).pipe(Command.withDescription("Record what a human found: the effect of record SEQ was applied, or is absent"))

const staged = Options.boolean("staged").pipe(Options.withDescription("List staged bash calls that never merged or keep changes (MINICODE_BASH_STAGED)"))
const discard = Options.boolean("discard").pipe(Options.withDescription("With --staged: remove their staging (the workspace holds none of it)"))

const recoverStaged = (workspace: string, drop: boolean) =>
  Effect.flatMap(StagedRecovery.list(workspace, drop), (r) =>
    Console.log(r.count === 0 ? "no staged bash call waits: every one merged or was discarded" : [...r.lines, ...(drop ? [] : ["`minicode recover --staged --discard` removes them."])].join("\n"))
  )

const recover = Command.make("recover", { cwd, json, staged, discard }, (flags) =>
  flags.staged ? recoverStaged(workspaceOf(flags.cwd), flags.discard) : withJournal(
    workspaceOf(flags.cwd),
    Effect.gen(function* () {
      const j = yield* Journal
      const plan = yield* j.recover.pipe(Effect.mapError(toFailure))
      const records = plan.items.length === 0 ? new Map<number, JournalRecord>() : new Map((yield* j.list().pipe(Effect.mapError(toFailure))).map((r) => [r.seq, r] as const))
      // A record whose writer is a live process, the same one (pid and start time), is a call still running there.
      const detailOf = (seq: number | null): RecoveryText.RecordDetail | undefined => {
        const record = seq === null ? undefined : records.get(seq)
        if (record === undefined) return undefined
        const pid = CliLayers.writerAlive(record.writer)
        return pid === undefined ? record : { ...record, running: pid }
      }
      // Each item with the sentence that explains it: what it was, why its outcome is unknown, what settles it.
      const explained = plan.items.map((item) => {
        const detail = detailOf(item.seq)
        return { ...item, running: RecoveryText.running(item, detail), explanation: RecoveryText.explain(item, detail) }
      })
      // Exit 4 while an outcome is unknown; failed and resolved items, and calls still running, are told, not waited for.
      const waiting = explained.filter((item) => RecoveryText.open(item) && !item.running).length
      const stillRunning = explained.filter((item) => item.running).length
      if (waiting > 0) process.exitCode = ExitCode.ExitCode.needsRecovery
      if (flags.json) return yield* Console.log(JSON.stringify({ ...plan, items: explained }, null, 2))
      if (plan.items.length === 0) return yield* Console.log("nothing to recover: every turn was finalised")
      yield* Console.log(explained.map((item) => `- ${item.explanation}`).join("\n"))
      yield* Console.log(
        waiting === 0
          ? stillRunning > 0
            ? `Nothing waits for a human yet: ${stillRunning === 1 ? "one call is" : `${stillRunning} calls are`} still running; run \`minicode recover\` again once ${stillRunning === 1 ? "it ends" : "they end"}.`
            : "Nothing waits for a human: every outcome above is known (nothing is ever repeated by itself)."
          : `Nothing was re-executed. ${waiting === 1 ? "One call waits" : `${waiting} calls wait`} for a human: settle ${waiting === 1 ? "it" : "each"} with the command on ${waiting === 1 ? "its" : "their"} line.`
      )
    })
  ).pipe(Shown.visible(flags.json))
).pipe(
  Command.withDescription("The recovery plan of unfinished turns: what is done, what to verify; never acts"),
  Command.withSubcommands([resolve])
)

const checkpoints = Command.make("checkpoints", { cwd, json }, (flags) =>
  withJournal(
    workspaceOf(flags.cwd),
    Effect.gen(function* () {
      const list = yield* Undo.checkpoints.pipe(Effect.mapError(toFailure))
      if (flags.json) return yield* Console.log(JSON.stringify(list, null, 2))
      yield* Console.log(
        list.length === 0
          ? "no checkpoints"
          : list.map((c) => `${c.session}/${c.turn} ${stamp(c.createdAt)} ${c.status} ${c.paths.map(shownPath).join(" ")}`).join("\n")
      )
    })
  ).pipe(Shown.visible(flags.json))
).pipe(Command.withDescription("Turns whose files can be restored (newest first)"))

const restore = (action: "undo" | "redo") =>
  Command.make(action, { cwd, json, turn, session }, (flags) =>
    Effect.gen(function* () {
      const workspace = workspaceOf(flags.cwd)
      const report = yield* withJournal(
        workspace,
        Effect.gen(function* () {
          yield* Checkpoints
          const target = Option.isSome(flags.turn)
            ? Option.some({ session: Option.getOrElse(flags.session, () => "cli"), turn: flags.turn.value })
            : yield* (action === "undo" ? Undo.latestUndoable : Undo.latestRedoable).pipe(Effect.mapError(toFailure))
          if (Option.isNone(target)) return yield* new UsageError({ reason: `nothing to ${action}: ${action === "undo" ? "no turn changed files (see `minicode checkpoints`)" : "no turn was undone"}` })
          const options = { root: workspace, session: target.value.session, turn: target.value.turn, ...killedAtStep() }
          return yield* (action === "undo" ? Undo.undo(options) : Undo.redo(options)).pipe(
            Effect.mapError((e) => (e._tag === "NothingToRestore" ? new UsageError({ reason: e.message }) : toFailure(e)))
          )
        })
      )
      if (flags.json) return yield* Console.log(JSON.stringify(report, null, 2))
      yield* Console.log(restoreLines(report).join("\n"))
      if (report.refused.length > 0) process.exitCode = ExitCode.ExitCode.denied
    }).pipe(Shown.visible(flags.json))
  ).pipe(
    Command.withDescription(
      action === "undo"
        ? "Restore a turn's files exactly as they were before it (refuses paths changed since)"
        : "Re-apply a turn that was undone"
    )
  )

/**
 * The fault tests' hook (issue 40, item 8): `MINICODE_TEST_KILL_RESTORE_AT=N` makes this process SIGKILL itself after
 * the restore's Nth journaled step, as a kill from outside would stop it there. Read from the environment the test
 * starts the process with, never from the workspace.
 */
const killedAtStep = (): { readonly afterStep?: (step: number) => Effect.Effect<void> } => {
  const at = Number(process.env["MINICODE_TEST_KILL_RESTORE_AT"] ?? "")
  return Number.isInteger(at) && at > 0 ? { afterStep: (step) => (step === at ? Effect.sync(() => process.kill(process.pid, "SIGKILL")) : Effect.void) } : {}
}

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`

/** The report of `undo`/`redo` as sentences: what was done (or why nothing was), then one line per file. */
const restoreLines = (report: Undo.RestoreReport): ReadonlyArray<string> => {
  const turn = `turn ${report.session}/${report.turn}`
  const again = `\`minicode ${report.action} --session ${report.session} --turn ${report.turn}\``
  const head =
    report.refused.length > 0
      ? `${report.action === "undo" ? "Undo" : "Redo"} of ${turn} refused: nothing was changed, and the turn can still be ${report.action === "undo" ? "undone" : "redone"}. Put the ${report.refused.length === 1 ? "file" : "files"} below back as the turn left ${report.refused.length === 1 ? "it" : "them"} (or move ${report.refused.length === 1 ? "it" : "them"} aside), then run ${again}.`
      : report.restored.length === 0
        ? `Nothing to restore in ${turn}: every file it changed is already as it ${report.action === "undo" ? "was before the turn" : "was after it"}.`
        : `${report.action === "undo" ? "Undid" : "Redid"} ${turn}: ${files(report.restored.length)} restored.`
  return [
    head,
    ...report.refused.map((s) => `  refused ${shownPath(s.path)}: ${s.reason}.`),
    ...(report.refused.length > 0 ? [] : report.restored.map((p) => `  restored ${shownPath(p)}`)),
    ...report.skipped.map((s) => `  skipped ${shownPath(s.path)}: ${s.reason}.`),
    ...report.notRestorable.map((n) => `  #${n.seq} (${n.tool}) is not undone: it keeps no file snapshots, so its effects stay; \`minicode journal --turn ${report.turn}\` shows it.`)
  ]
}

export const journalCommands = [journal, recover, checkpoints, restore("undo"), restore("redo")] as const
