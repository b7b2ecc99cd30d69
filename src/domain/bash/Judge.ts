/**
 * The bash guard's judgement, pure: a parsed command tree in, one `guard`-stage decision out. It fails closed
 * (syntax errors, unknown node kinds, dynamic command names, oversized input), normalises every simple command
 * (quotes, `$'…'`, literal variables, wrappers, `bash -c`/`eval` re-entry) and then applies the deny families in
 * `rules/` and the jail to what would really run. Every `$(…)`, `<(…)` and heredoc fed to a shell is judged as
 * its own unit.
 *
 * The judge never parses. Nested shell texts are looked up in a table of trees (`Trees`); a text the table lacks
 * is reported in `missing` and the verdict fails closed. `judgeWith` is the pre-pass and the judgement in one: it
 * judges, parses what was missing through the caller's parser, and judges again, a bounded number of rounds.
 */
import { Effect } from "effect"
import { allow } from "../core/Decision.js"
import { firstError, type BashAst } from "./BashAst.js"
import { fork, seq, statements, visit, word } from "./Statements.js"
import {
  denied,
  deny,
  initialScope,
  maxCommandLength,
  maxDepth,
  noStdin,
  Rules,
  type CommandInfo,
  type GuardContext,
  type GuardResult,
  type MutableScope,
  type Stdin,
  type Trees,
  type Walk
} from "./Walk.js"
import { literalAssignments, taint } from "./rules/Variables.js"
import { argv } from "./rules/Wrappers.js"

export { maxCommandLength, Rules, type GuardContext, type GuardResult, type Trees } from "./Walk.js"

export interface Judged {
  readonly result: GuardResult
  /** Texts the walk reached that the table lacks. Empty: the result is final; else it fails closed. */
  readonly missing: ReadonlyArray<string>
}

/** Rounds of "parse what was missing, judge again": one per level of re-entry, and a margin. */
export const maxRounds = maxDepth + 4

const final = (result: GuardResult): Judged => ({ result, missing: [] })

/** A whole command: the size and NUL checks, its tree from the table, then the walk. */
export const judgeCommand = (command: string, ctx: GuardContext, trees: Trees): Judged => {
  if (command.length > maxCommandLength) {
    return final(denied(Rules.tooLarge, `the command is ${command.length} characters; the guard judges at most ${maxCommandLength}`))
  }
  if (command.includes("\0")) return final(denied(Rules.parseError, "the command contains a NUL byte"))
  const ast = trees.get(command)
  if (ast === undefined) {
    const unparsed = denied(Rules.parseError, "the command could not be parsed")
    return trees.has(command) ? final(unparsed) : { result: unparsed, missing: [command] }
  }
  return judge(ast, ctx, trees)
}

/** One parsed command, walked; nested texts come from `trees`. */
export const judge = (ast: BashAst, ctx: GuardContext, trees: Trees = new Map()): Judged => {
  const st: Walk = {
    ctx,
    root: ctx.jail.root,
    trees,
    denial: undefined,
    simpleCommands: 0,
    allMatched: true,
    unmatched: undefined,
    unmatchedArgv: [],
    functions: new Set(),
    missing: [],
    script: (source, info, what) => script(st, source, info, what),
    argv: (words, info, flags) => argv(st, words, info, flags),
    visit: (node, info) => visit(st, node, info),
    word: (node, info) => word(st, node, info),
    seq: (children, info) => seq(st, children, info)
  }
  unit(st, ast, initialScope(ctx), ctx.cwd, 0, noStdin)
  const first = st.missing[0]
  if (first !== undefined) return { result: denied(Rules.parseError, "a nested shell text is not parsed yet"), missing: st.missing }
  if (st.denial !== undefined) return final({ decision: st.denial, allowlisted: false })
  const allowlisted = st.simpleCommands > 0 ? st.allMatched : ctx.allowlist.length > 0 && st.allMatched
  if (ctx.requireAllowlist && !allowlisted) {
    return final(
      denied(
        Rules.allowlist,
        st.unmatched === undefined
          ? "policy allowlist: the command has nothing an allowlist entry approves"
          : `policy allowlist: \`${st.unmatched}\` matches no allowlist entry`
      )
    )
  }
  return final({ decision: allow("guard", Rules.pass, "no guard rule matched"), allowlisted, unmatched: st.unmatchedArgv })
}

/**
 * Judges a command, parsing through `parse` (the BashParser port in the kernel) the command and every nested text
 * the walk reaches, until nothing is missing or the rounds run out (then the verdict fails closed). `parse` gives
 * `undefined` for a text it cannot parse; its failures (no parser at all) pass through.
 */
export const judgeRounds = <E, R>(
  command: string,
  ctx: GuardContext,
  parse: (source: string) => Effect.Effect<BashAst | undefined, E, R>
): Effect.Effect<GuardResult, E, R> =>
  Effect.gen(function* () {
    const trees = new Map<string, BashAst | undefined>()
    let judged = judgeCommand(command, ctx, trees)
    for (let round = 0; judged.missing.length > 0 && round < maxRounds; round++) {
      for (const source of judged.missing) trees.set(source, yield* parse(source))
      judged = judgeCommand(command, ctx, trees)
    }
    return judged.result
  })

/** `judgeRounds` as the kernel runs it: a bug in the judge is a deny, never an allow and never a crash. */
export const judgeWith = <E, R>(
  command: string,
  ctx: GuardContext,
  parse: (source: string) => Effect.Effect<BashAst | undefined, E, R>
): Effect.Effect<GuardResult, E, R> =>
  judgeRounds(command, ctx, parse).pipe(
    Effect.catchAllDefect(() => Effect.succeed(denied("guard.internal-error", "the guard failed on this command, so it cannot be judged safe")))
  )

/** One script: a whole command, a `bash -c` string, an `eval`, a heredoc fed to a shell. */
const unit = (st: Walk, ast: BashAst, parent: MutableScope, cwd: string, depth: number, stdin: Stdin): void => {
  if (depth > maxDepth) return deny(st, Rules.tooLarge, `shell re-entry nested deeper than ${maxDepth} levels`)
  const error = firstError(ast.root)
  if (error !== undefined) {
    const snippet = error.text.length > 40 ? error.text.slice(0, 40) + "…" : error.text
    return deny(st, Rules.parseError, error.missing ? `the command is incomplete: a ${error.type} is missing` : `the command does not parse near \`${snippet}\``)
  }
  const assigned = literalAssignments(ast.root, parent)
  const scope: MutableScope = { vars: new Map(parent.vars), home: parent.home, cwd, ifsChanged: parent.ifsChanged }
  for (const [name] of assigned) {
    // assigned in this unit: unknown until a definite literal assignment is passed
    scope.vars.set(name, "unknown")
    if (name === "IFS") scope.ifsChanged = true
  }
  fork(st, ast.root)
  taint(st, ast.root, assigned)
  statements(st, ast.root, { stdin, cwd, depth, scope }, assigned)
}

/** Re-enters the shell with a script string: its tree from the table, or noted as missing. */
const script = (st: Walk, source: string, info: CommandInfo, what: string): void => {
  if (source.length > maxCommandLength) return deny(st, Rules.tooLarge, `${what} is longer than the guard judges`)
  if (!st.trees.has(source)) {
    // walk on past it, so one round collects every text at this depth; the verdict fails closed meanwhile
    if (!st.missing.includes(source)) st.missing.push(source)
    return
  }
  const ast = st.trees.get(source)
  if (ast === undefined) return deny(st, Rules.parseError, `${what} could not be parsed`)
  unit(st, ast, info.scope, info.cwd, info.depth + 1, info.stdin)
}
