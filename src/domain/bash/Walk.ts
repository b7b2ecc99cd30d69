/**
 * The bash guard's walk state and shared vocabulary: the context a command is judged in and the table of parsed
 * texts (both immutable), the verdict being built (the first denial wins; the allowlist tally; texts still to
 * parse), and the two re-entry points the rule families call back through (`script`, `argv`).
 */
import type { AllowEntry } from "../core/Allowlist.js"
import { matchesArgv } from "../core/Allowlist.js"
import { deny as denyDecision, type Decision } from "../core/Decision.js"
import type * as Jail from "../jail/Jail.js"
import type { BashAst, BashNode } from "./BashAst.js"
import type * as W from "./BashWords.js"

export interface GuardContext {
  readonly jail: Jail.JailContext
  /** Absolute working directory the command starts in. */
  readonly cwd: string
  readonly allowlist: ReadonlyArray<AllowEntry>
  readonly requireAllowlist: boolean
  readonly network: boolean
}

/**
 * The trees of the shell texts a command contains (the command itself, `bash -c` strings, `eval`, heredocs fed to a
 * shell), by source text; `undefined` when the parser gave none. The judge never parses: a text it reaches that
 * the table lacks is reported as missing, and the verdict fails closed until the table has it.
 */
export type Trees = ReadonlyMap<string, BashAst | undefined>

export interface GuardResult {
  readonly decision: Decision
  readonly allowlisted: boolean
  /** The command lines (as written, wrappers kept) no allowlist entry approves, in order: what an ask is about. */
  readonly unmatched?: ReadonlyArray<ReadonlyArray<string>> | undefined
}

export const Rules = {
  parseError: "guard.parse-error",
  unknownNode: "guard.unknown-node",
  dynamicCommand: "guard.dynamic-command",
  tooLarge: "guard.too-large",
  envDump: "guard.env-dump",
  exfiltration: "guard.exfiltration",
  inlineInterpreter: "guard.inline-interpreter",
  destruction: "guard.destruction",
  path: "guard.path",
  secretRead: "guard.secret-read",
  allowlist: "guard.allowlist",
  pass: "guard.pass"
} as const

/** Commands longer than this are denied unparsed. */
export const maxCommandLength = 64 * 1024

export const maxDepth = 12

export const denied = (rule: string, reason: string): GuardResult => ({ decision: denyDecision("guard", rule, reason), allowlisted: false })

export interface MutableScope extends W.Scope {
  readonly vars: Map<string, W.VarValue>
  ifsChanged: boolean
}

export const initialScope = (ctx: GuardContext): MutableScope => {
  const vars = new Map<string, W.VarValue>()
  if (ctx.jail.home !== undefined) vars.set("HOME", { value: ctx.jail.home, tainted: false })
  vars.set("PWD", { value: ctx.cwd, tainted: false })
  vars.set("TMPDIR", { value: "/tmp", tainted: false })
  return { vars, home: ctx.jail.home, cwd: ctx.cwd, ifsChanged: false }
}

export type Stdin =
  | { readonly kind: "none" }
  /** `echoed`: the words the previous stage prints when it is a plain `echo`/`printf %s` of literal words. */
  | { readonly kind: "pipe"; readonly echoed?: string | undefined }
  | { readonly kind: "file" }
  | { readonly kind: "heredoc"; readonly body: string }
  | { readonly kind: "herestring"; readonly body: string | undefined }

export const noStdin: Stdin = { kind: "none" }

/** Commands the allowlist does not need to approve. */
export const trivialCommands: ReadonlySet<string> = new Set(["cd", "pushd", "popd", "true", "false", ":", "set", "shopt", "test", "[", "[["])

export interface CommandInfo {
  readonly stdin: Stdin
  readonly cwd: string
  readonly depth: number
  readonly scope: MutableScope
}

/**
 * One judgement in progress. `ctx` and `trees` are the immutable input; the rest is the verdict, written only
 * through `deny` (the first denial wins), `simple` (the allowlist tally) and `missing` (texts to parse).
 */
export interface Walk {
  readonly ctx: GuardContext
  readonly root: string
  readonly trees: Trees
  denial: Decision | undefined
  simpleCommands: number
  allMatched: boolean
  unmatched: string | undefined
  readonly unmatchedArgv: Array<ReadonlyArray<string>>
  readonly functions: Set<string>
  readonly missing: Array<string>
  /** Re-enters the shell with a script string (`bash -c`, `eval`, a heredoc fed to a shell). */
  readonly script: (source: string, info: CommandInfo, what: string) => void
  /** The walk itself, for the families that hold statements or words (redirections, assignments). */
  readonly visit: (node: BashNode, info: CommandInfo) => void
  readonly word: (node: BashNode, info: CommandInfo) => void
  readonly seq: (children: ReadonlyArray<BashNode>, info: CommandInfo) => CommandInfo
  /** Judges a command line a rule built (`find -exec`, `git bisect run`), wrappers first. */
  readonly argv: (argv: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags) => void
}

export const deny = (st: Walk, rule: string, reason: string): void => {
  if (st.denial === undefined) st.denial = denyDecision("guard", rule, reason)
}

/** Records one simple command for the allowlist. */
export const simple = (st: Walk, argv: ReadonlyArray<string>, full?: ReadonlyArray<string>): void => {
  if (argv.length === 0 || trivialCommands.has(argv[0] ?? "")) return
  st.simpleCommands++
  const matched = st.ctx.allowlist.some((e) => matchesArgv(e, argv) || (full !== undefined && matchesArgv(e, full)))
  if (!matched) {
    st.allMatched = false
    if (st.unmatched === undefined) st.unmatched = argv.join(" ")
    st.unmatchedArgv.push(full ?? argv)
  }
}

export interface ArgvFlags {
  readonly substitution: boolean
  readonly procSub: boolean
  readonly privileged: boolean
  readonly text: string
}
