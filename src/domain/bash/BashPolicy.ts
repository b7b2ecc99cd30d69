/**
 * The bash guard's judgement, pure: a parsed command tree in, one `guard`-stage decision out. It fails closed
 * (syntax errors, unknown node kinds, dynamic command names, oversized input), normalises every simple command
 * (quotes, `$'…'`, literal variables, wrappers, `bash -c`/`eval` re-entry) and then applies the deny families and
 * the jail to what would really run. Every `$(…)`, `<(…)` and heredoc fed to a shell is judged as its own unit.
 */
import type { AllowEntry } from "../core/Allowlist.js"
import { matchesArgv } from "../core/Allowlist.js"
import { type BashAst, type BashNode, field as fieldOf, fields as fieldsOf, firstError } from "./BashAst.js"
import * as W from "./BashWords.js"
import { allow, deny, type Decision } from "../core/Decision.js"
import * as Jail from "../jail/Jail.js"
import * as P from "../jail/PosixPath.js"

export interface GuardContext {
  readonly jail: Jail.JailContext
  /** Absolute working directory the command starts in. */
  readonly cwd: string
  readonly allowlist: ReadonlyArray<AllowEntry>
  readonly requireAllowlist: boolean
  readonly network: boolean
  /** Parses a string synchronously (for `bash -c`, `eval`, heredocs fed to a shell); undefined when it cannot. */
  readonly reparse: (source: string) => BashAst | undefined
}

export interface GuardResult {
  readonly decision: Decision
  readonly allowlisted: boolean
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
const maxDepth = 12

// ---------------------------------------------------------------------------------------------------------------
// Entry points

export const judgeCommand = (command: string, ctx: GuardContext): GuardResult => {
  if (command.length > maxCommandLength) {
    return denied(Rules.tooLarge, `the command is ${command.length} characters; the guard judges at most ${maxCommandLength}`)
  }
  if (command.includes("\0")) return denied(Rules.parseError, "the command contains a NUL byte")
  const ast = ctx.reparse(command)
  if (ast === undefined) return denied(Rules.parseError, "the command could not be parsed")
  return judge(ast, ctx)
}

export const judge = (ast: BashAst, ctx: GuardContext): GuardResult => {
  const st = new State(ctx)
  const scope = initialScope(ctx)
  st.unit(ast, scope, ctx.cwd, 0, noStdin)
  if (st.denial !== undefined) return { decision: st.denial, allowlisted: false }
  const allowlisted = st.simpleCommands > 0 ? st.allMatched : ctx.allowlist.length > 0 && st.allMatched
  if (ctx.requireAllowlist && !allowlisted) {
    return denied(
      Rules.allowlist,
      st.unmatched === undefined
        ? "policy allowlist: the command has nothing an allowlist entry approves"
        : `policy allowlist: \`${st.unmatched}\` matches no allowlist entry`
    )
  }
  return { decision: allow("guard", Rules.pass, "no guard rule matched"), allowlisted }
}

const denied = (rule: string, reason: string): GuardResult => ({ decision: deny("guard", rule, reason), allowlisted: false })

// ---------------------------------------------------------------------------------------------------------------
// Scope and variables

interface MutableScope extends W.Scope {
  readonly vars: Map<string, W.VarValue>
  ifsChanged: boolean
}

const initialScope = (ctx: GuardContext): MutableScope => {
  const vars = new Map<string, W.VarValue>()
  if (ctx.jail.home !== undefined) vars.set("HOME", { value: ctx.jail.home, tainted: false })
  vars.set("PWD", { value: ctx.cwd, tainted: false })
  vars.set("TMPDIR", { value: "/tmp", tainted: false })
  return { vars, home: ctx.jail.home, cwd: ctx.cwd, ifsChanged: false }
}

type Stdin =
  | { readonly kind: "none" }
  /** `echoed`: the words the previous stage prints when it is a plain `echo`/`printf %s` of literal words. */
  | { readonly kind: "pipe"; readonly echoed?: string | undefined }
  | { readonly kind: "file" }
  | { readonly kind: "heredoc"; readonly body: string }
  | { readonly kind: "herestring"; readonly body: string | undefined }
const noStdin: Stdin = { kind: "none" }

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Commands that assign the variables they name (so their value is unknown afterwards). */
const readers: ReadonlySet<string> = new Set(["read", "readarray", "mapfile", "getopts", "printf", "let", "unset", "declare", "typeset", "local", "export", "readonly", "wait", "select"])

/** Names whose every assignment in the unit is the same literal value, with that value. */
const literalAssignments = (root: BashNode, scope: W.Scope): Map<string, W.VarValue> => {
  const seen = new Map<string, W.VarValue>()
  const note = (name: string, value: W.VarValue) => {
    const prior = seen.get(name)
    if (prior === undefined) seen.set(name, value)
    else if (prior === "unknown" || value === "unknown" || prior.value !== value.value) seen.set(name, "unknown")
  }
  const walk = (node: BashNode, arithmetic: boolean) => {
    switch (node.type) {
      case "variable_assignment": {
        const name = fieldOf(node, "name")
        const value = fieldOf(node, "value")
        if (name !== undefined) {
          const nameText = name.type === "subscript" ? fieldOf(name, "name")?.text ?? name.text : name.text
          if (name.type === "subscript" || node.text.includes("+=")) note(nameText, "unknown")
          else {
            const v = W.expandValue(value, { ...scope, vars: new Map() })
            const s = W.literal(v.field)
            note(nameText, s === undefined || v.commandSubstitution ? "unknown" : { value: s, tainted: /\$\(|`|\$\{/.test(s) })
          }
        }
        break
      }
      case "for_statement": {
        const variable = fieldOf(node, "variable")
        if (variable !== undefined) note(variable.text, "unknown")
        break
      }
      case "variable_name":
        if (arithmetic) note(node.text, "unknown")
        break
      case "command": {
        const name = fieldOf(node, "name")
        if (name !== undefined && readers.has(name.text)) {
          for (const arg of fieldsOf(node, "argument")) {
            const m = /^-?([A-Za-z_][A-Za-z0-9_]*)/.exec(arg.text.replace(/^-[a-zA-Z]*\s*/, ""))
            if (m?.[1] !== undefined) note(m[1], "unknown")
            if (identifier.test(arg.text)) note(arg.text, "unknown")
          }
        }
        break
      }
      case "unset_command":
      case "declaration_command":
        for (const c of node.children) if (c.type === "variable_name" || c.type === "word") note(c.text.replace(/^-+/, ""), "unknown")
        break
    }
    const arith =
      arithmetic ||
      node.type === "arithmetic_expansion" ||
      node.type === "c_style_for_statement" ||
      (node.type === "compound_statement" && node.text.startsWith("(("))
    for (const c of node.children) walk(c, arith)
  }
  walk(root, false)
  return seen
}

// ---------------------------------------------------------------------------------------------------------------
// Node kinds

const statementKinds = new Set([
  "program", "list", "pipeline", "subshell", "compound_statement", "redirected_statement", "if_statement",
  "elif_clause", "else_clause", "while_statement", "for_statement", "c_style_for_statement", "do_group",
  "case_statement", "case_item", "function_definition", "negated_command", "test_command", "command",
  "variable_assignment", "variable_assignments", "declaration_command", "unset_command", "comment"
])
const wordKinds = new Set([
  "word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "simple_expansion",
  "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "number", "brace_expression",
  "extglob_pattern", "regex", "array", "string_content", "variable_name", "special_variable_name", "subscript",
  "binary_expression", "unary_expression", "ternary_expression", "postfix_expression", "parenthesized_expression",
  "test_operator", "file_descriptor", "command_name", "file_redirect", "heredoc_redirect", "herestring_redirect",
  "heredoc_start", "heredoc_body", "heredoc_content", "heredoc_end"
])
const knownKinds = new Set([...statementKinds, ...wordKinds])

// ---------------------------------------------------------------------------------------------------------------
// Command tables

const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash", "pdksh", "oksh"])
const interpreters = new Map<string, RegExp>([
  // the options that take program text, per family (matched on whole words or short-option clusters)
  ["python", /^(-[A-Za-z]*c[A-Za-z]*|--command)$/],
  ["pypy", /^-[A-Za-z]*c$/],
  ["node", /^(-[A-Za-z]*[ep][A-Za-z]*|--eval|--print|--eval=.*|--print=.*)$/],
  ["nodejs", /^(-[A-Za-z]*[ep][A-Za-z]*|--eval|--print|--eval=.*|--print=.*)$/],
  ["deno", /^(eval|-e|--eval)$/],
  ["bun", /^(-e|--eval|-p|--print|--eval=.*|--print=.*)$/],
  ["perl", /^(-[A-Za-z0-9:]*[eE][A-Za-z0-9]*)$/],
  ["ruby", /^(-[A-Za-z]*e[A-Za-z]*)$/],
  ["irb", /^.*$/],
  ["php", /^(-[A-Za-z]*[rRBEF][A-Za-z]*|--run|--process-code|--process-begin|--process-end)$/],
  ["lua", /^-[A-Za-z]*e$/],
  ["luajit", /^-[A-Za-z]*e$/],
  ["rscript", /^(-e|--expr.*)$/],
  ["r", /^(-e|--expr.*)$/],
  ["osascript", /^-[A-Za-z]*e$/],
  ["pwsh", /^(-c|-command|-commandwithargs|-encodedcommand|-ec|-e)$/i],
  ["powershell", /^(-c|-command|-encodedcommand|-ec|-e)$/i],
  ["tclsh", /^$/],
  ["julia", /^(-[A-Za-z]*e[A-Za-z]*|--eval|-E|--print)$/],
  ["groovy", /^-e$/],
  ["jshell", /^.*$/],
  ["gawk", /^$/]
])
/** Every name the versioned patterns below accept starts like this (a quick no for all other commands). */
const versionedInterpreter = /^(python|pypy|perl|ruby|php|lua|node)/
const interpreterName = (name: string): string | undefined => {
  const lower = name.toLowerCase()
  if (interpreters.has(lower)) return lower
  if (!versionedInterpreter.test(lower)) return undefined
  if (/^python[0-9.]*$/.test(lower) || /^pypy[0-9.]*$/.test(lower)) return "python"
  if (/^perl[0-9.]*$/.test(lower)) return "perl"
  if (/^ruby[0-9.]*$/.test(lower)) return "ruby"
  if (/^php[0-9.]*$/.test(lower)) return "php"
  if (/^lua[0-9.]*$/.test(lower)) return "lua"
  if (/^node[0-9]*$/.test(lower)) return "node"
  return undefined
}
/** Interpreter options that take a value, so the value is not mistaken for the script. */
const interpreterValueOptions = new Set(["-m", "-W", "-X", "-r", "--require", "--import", "-I", "-M", "--loader", "--input-type", "-C"])

const networkCommands = new Set([
  "curl", "wget", "http", "https", "xh", "xhs", "httpie", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp",
  "sftp", "rsync", "ftp", "tftp", "dig", "nslookup", "host", "ping", "openssl", "aria2c", "lftp", "smbclient",
  "gsutil", "rclone", "s3cmd"
])
const socketCommands = new Set(["nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp", "sftp", "lftp", "smbclient"])

const rcFiles = new Set([
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin",
  ".zlogout", ".inputrc", ".kshrc", ".cshrc", ".tcshrc", ".mkshrc", ".envrc", ".bash_aliases", "config.fish"
])

/** Commands that only look at names or print their arguments, never read the files they name. */
const nonReaders = new Set([
  "echo", "printf", "ls", "test", "[", "[[", "stat", "cd", "pushd", "popd", "dirname", "basename", "realpath",
  "readlink", "mkdir", "which", "type", "true", "false", ":", "du", "df", "touch", "rm", "rmdir", "unlink", "tree",
  "file", "command", "hash", "export", "unset", "local", "declare", "typeset", "readonly", "set", "shopt"
])

/** `VAR=…` for these runs a program or loads code. */
const execVars = new Set([
  "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV",
  "PROMPT_COMMAND", "PERL5OPT", "PERL5DB", "LESSOPEN", "LESSCLOSE", "SHELLOPTS", "BASHOPTS", "BASH_FUNC", "PYTHONSTARTUP",
  "PYTHONINSPECT", "GIT_DIFF_OPTS", "GIT_SEQUENCE_EDITOR"
])
const pagerVars = new Set(["GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER"])
const benignPagers = /^(cat|less( -[A-Za-z]+)*|more|true|:|vim?|nvim|nano|emacs|code( --wait| -w)?|delta|bat|most|ed|)$/

/** Git configuration keys whose value is a program to run (or loads further config). */
const gitExecKey = (key: string): boolean => {
  const k = key.toLowerCase()
  return (
    /^core\.(pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass|attributesfile|excludesfile)$/.test(k) ||
    /^(sequence\.editor|diff\.external|credential\.helper|gpg\.program|ssh\.variant|include\.path|uploadpack\.packobjectshook|web\.browser|interactive\.difffilter|man\.viewer)$/.test(k) ||
    /^(alias|pager|filter|diff|difftool|mergetool|merge|credential|gpg|protocol|remote|includeif|browser|man|instaweb|sendemail|url)\./.test(k) &&
      /(\.(textconv|command|cmd|driver|clean|smudge|process|helper|program|path|allow|receivepack|uploadpack|vcs|pushurl|insteadof|pushinsteadof|tool|sendmailcmd|smtpserver)$|^alias\.|^pager\.)/.test(k)
  )
}

const deviceTarget = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|mapper\/|md\d|loop\d|dm-|sr\d|mem$|kmem$|port$)/
const harmlessDevices = /^\/dev\/(null|zero|random|urandom|stdout|stderr|stdin|tty|full|fd\/[0-2]|pts\/\d+)$/

// ---------------------------------------------------------------------------------------------------------------
// Globs: could a pattern match a protected name?

const samplePool = [
  ".ssh", ".aws", ".kube", ".gnupg", ".azure", ".docker", "config.json", ".git", "hooks", "config", "config.worktree",
  ".env", ".env.local", ".env.production", ".env.development", ".git-credentials", ".npmrc", ".netrc", "_netrc", ".pypirc",
  ".pgpass", "credentials.json", "credentials", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
  "secrets.json", "secrets.yaml", "secrets.yml", "secrets.env", "etc", "shadow", "gshadow", "sudoers", "master.passwd",
  "proc", "self", "1", "task", "environ", ".minicode", ".config", "minicode", "authorized_keys", "known_hosts",
  "x.pem", "x.key", "x.p12", "x.pfx", "x.jks", "x.keystore",
  ...rcFiles
]
const keyExts = [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"]

const regExpSpecial = /[\\^$.*+?()[\]{}|/]/
const regExpSpecials = /[\\^$.*+?()[\]{}|/]/g

const segmentRegExp = (seg: W.Field): RegExp => {
  let out = ""
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i]
    if (ch === undefined) continue
    if (ch.k === "unk" || ch.k === "sub") out += ".*"
    else if (W.isGlobActive(ch)) {
      if (ch.c === "*") out += i === 0 ? "(?!\\.).*" : ".*"
      else if (ch.c === "?") out += i === 0 ? "[^.]" : "."
      else {
        // a bracket expression: up to the closing ]
        let j = i + 1
        let cls = ""
        if (seg[j]?.c === "!" || seg[j]?.c === "^") {
          cls += "^"
          j++
        }
        if (seg[j]?.c === "]") {
          cls += "\\]"
          j++
        }
        while (j < seg.length && seg[j]?.c !== "]") {
          const c = seg[j]?.c ?? ""
          cls += c === "\\" ? "\\\\" : c
          j++
        }
        if (j >= seg.length) out += "\\["
        else {
          out += `[${cls}]`
          i = j
        }
      }
    } else out += regExpSpecial.test(ch.c) ? ch.c.replace(regExpSpecials, "\\$&") : ch.c
  }
  try {
    return new RegExp(`^${out}$`, "i")
  } catch {
    return /^.*$/
  }
}

/** Literal text before the first wildcard of a segment (for derived samples like `server.*` → `server.pem`). */
const literalPrefix = (seg: W.Field): string => {
  let s = ""
  for (const ch of seg) {
    if (ch.k === "unk" || ch.k === "sub" || W.isGlobActive(ch)) break
    s += ch.c
  }
  return s
}

const neutral = "\uE002"

/** Candidate names a pattern segment could take: protected samples it matches, plus an ordinary name. */
const segmentCandidates = (seg: W.Field): ReadonlyArray<string> => {
  const hasLiteral = seg.some((ch) => ch.k === "q" || ((ch.k === "src" || ch.k === "var") && !W.globChars.has(ch.c)))
  if (!hasLiteral) return [neutral, ""]
  const re = segmentRegExp(seg)
  const prefix = literalPrefix(seg)
  // `server.*` could be `server.pem`: a wildcard standing for an extension could be a key's
  const derived = W.hasGlob(seg) && prefix.endsWith(".") ? keyExts.map((e) => prefix + e.slice(1)) : []
  const out = [...samplePool, ...derived].filter((s) => s !== "" && re.test(s))
  return [neutral, ...new Set(out)]
}

interface PathJudgement {
  /** Lexically resolved absolute path when the field is fully literal. */
  readonly literal: string | undefined
  /** The literal folder before the first non-literal segment; undefined when the path starts with an unknown. */
  readonly base: string | undefined
  readonly unknown: boolean
  readonly sub: boolean
  readonly glob: boolean
  /** Why it is (or could be) protected, with the jail rule kind. */
  readonly protectedBy: { readonly kind: "secret" | "state" | "rc" | "environ"; readonly reason: string } | undefined
}

const splitSegments = (field: W.Field): Array<W.Field> => {
  const segs: Array<Array<W.Ch>> = [[]]
  for (const ch of field) {
    if (ch.c === "/" && ch.k !== "unk" && ch.k !== "sub") segs.push([])
    else segs[segs.length - 1]?.push(ch)
  }
  return segs
}

const protectedReason = (abs: string, root: string): PathJudgement["protectedBy"] => {
  if (/^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/i.test(abs)) return { kind: "environ", reason: `${abs} is a process environment` }
  const name = Jail.protectedName(abs, root)
  if (name?.kind === "state") return { kind: "state", reason: "minicode's own state (.minicode/) is not for tools" }
  if (name?.kind === "secret") return { kind: "secret", reason: name.reason }
  if (rcFiles.has(P.basename(abs).toLowerCase())) return { kind: "rc", reason: `${P.basename(abs)} is a shell start-up file` }
  return undefined
}

const maxCandidates = 4096

const judgePath = (field: W.Field, cwd: string, root: string): PathJudgement => {
  const unknown = W.hasUnknown(field)
  const sub = W.hasSub(field)
  const glob = W.hasGlob(field)
  const raw = W.text(field)
  if (!unknown && !sub && !glob) {
    const abs = P.resolve(cwd, raw)
    return { literal: abs, base: abs, unknown, sub, glob, protectedBy: protectedReason(abs, root) }
  }
  const startsUnknown = field[0]?.k === "unk"
  const absolute = field[0]?.c === "/" && field[0].k !== "unk"
  const segs = splitSegments(field).filter((s, i) => s.length > 0 || i === 0)
  // the literal folder before the first non-literal segment
  let baseSegs: Array<string> = []
  let firstPattern = segs.length
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? []
    if (!W.isLiteral(seg)) {
      firstPattern = i
      break
    }
    baseSegs.push(W.text(seg))
  }
  const base = startsUnknown ? undefined : P.resolve(absolute ? "/" : cwd, baseSegs.join("/"))
  // candidates: every combination of the pattern segments' candidate names
  let candidates: Array<string> = [startsUnknown ? "" : base ?? "/"]
  for (let i = firstPattern; i < segs.length; i++) {
    const seg = segs[i] ?? []
    const options = W.isLiteral(seg) ? [W.text(seg)] : segmentCandidates(seg)
    const next: Array<string> = []
    for (const c of candidates) for (const o of options) next.push(o === "" ? c : `${c}/${o}`)
    candidates = next
    if (candidates.length > maxCandidates) {
      return { literal: undefined, base, unknown, sub, glob, protectedBy: { kind: "secret", reason: `${raw} is too broad a pattern to judge` } }
    }
  }
  for (const c of candidates) {
    const abs = P.resolve("/", c)
    const why = protectedReason(abs, root)
    if (why !== undefined) return { literal: undefined, base, unknown, sub, glob, protectedBy: { ...why, reason: `${raw} could match a protected path: ${why.reason}` } }
  }
  baseSegs = []
  return { literal: undefined, base, unknown, sub, glob, protectedBy: undefined }
}

/** A field's text for a message: unknown parts as `$…`, paths below a folder as `…`. */
const shownPath = (raw: string): string =>
  raw.includes("\uE000") || raw.includes("\uE001") ? raw.replace(/\uE000/g, "$…").replace(/\uE001/g, "…") : raw

/** The working folder after a `cd` the guard cannot follow: relative writes then land outside the workspace. */
const unknownCwd = "/\uE000"

const changesDirectory = (node: BashNode): boolean => {
  if (node.type === "subshell" || node.type === "pipeline" || node.type === "command_substitution" || node.type === "process_substitution") return false
  if (node.type === "command") {
    const name = fieldOf(node, "name")?.text
    return name === "cd" || name === "pushd" || name === "popd"
  }
  return node.children.some(changesDirectory)
}

/** Reserved words tree-sitter sometimes accepts as command names where bash would stop with a syntax error. */
const reservedWords = new Set(["do", "done", "then", "fi", "elif", "else", "esac", "in", "if", "for", "while", "until", "case", "select", "function", "{", "}", "!", "]]"])

/** Commands the allowlist does not need to approve. */
const trivialCommands: ReadonlySet<string> = new Set(["cd", "pushd", "popd", "true", "false", ":", "set", "shopt", "test", "[", "[["])

const isTempPath = (abs: string): boolean => P.isInside("/tmp", abs) || P.isInside("/var/tmp", abs)

// ---------------------------------------------------------------------------------------------------------------
// The walk

interface CommandInfo {
  readonly stdin: Stdin
  readonly cwd: string
  readonly depth: number
  readonly scope: MutableScope
}

class State {
  denial: Decision | undefined = undefined
  simpleCommands = 0
  allMatched = true
  unmatched: string | undefined = undefined
  readonly functions = new Set<string>()
  constructor(readonly ctx: GuardContext) {}

  get root() {
    return this.ctx.jail.root
  }

  deny(rule: string, reason: string): void {
    if (this.denial === undefined) this.denial = deny("guard", rule, reason)
  }

  /** One script: a whole command, a `bash -c` string, an `eval`, a heredoc fed to a shell. */
  unit(ast: BashAst, parent: MutableScope, cwd: string, depth: number, stdin: Stdin): void {
    if (depth > maxDepth) return this.deny(Rules.tooLarge, `shell re-entry nested deeper than ${maxDepth} levels`)
    const error = firstError(ast.root)
    if (error !== undefined) {
      const snippet = error.text.length > 40 ? error.text.slice(0, 40) + "…" : error.text
      return this.deny(Rules.parseError, error.missing ? `the command is incomplete: a ${error.type} is missing` : `the command does not parse near \`${snippet}\``)
    }
    const assigned = literalAssignments(ast.root, parent)
    const scope: MutableScope = { vars: new Map(parent.vars), home: parent.home, cwd, ifsChanged: parent.ifsChanged }
    for (const [name] of assigned) {
      // assigned in this unit: unknown until a definite literal assignment is passed
      scope.vars.set(name, "unknown")
      if (name === "IFS") scope.ifsChanged = true
    }
    this.fork(ast.root)
    this.taint(ast.root, assigned)
    this.statements(ast.root, { stdin, cwd, depth, scope }, assigned)
  }

  /** Fork bombs: a function that calls itself in a pipeline or in the background. */
  fork(root: BashNode): void {
    const walk = (node: BashNode): void => {
      if (node.type === "function_definition") {
        const name = fieldOf(node, "name")?.text
        const body = fieldOf(node, "body")
        if (name !== undefined && body !== undefined) {
          const calls = (n: BashNode): boolean =>
            (n.type === "command" && fieldOf(n, "name")?.text === name) || n.children.some(calls)
          const parallel = (n: BashNode): boolean =>
            ((n.type === "pipeline" || n.children.some((c) => !c.named && c.type === "&")) && calls(n)) || n.children.some(parallel)
          if (parallel(body)) this.deny(Rules.destruction, `function ${name} starts copies of itself: a fork bomb`)
        }
      }
      node.children.forEach(walk)
    }
    walk(root)
  }

  /** A literal that holds `$(…)` is code once bash evaluates it arithmetically or as a prompt. */
  taint(root: BashNode, assigned: ReadonlyMap<string, W.VarValue>): void {
    const tainted = new Set<string>()
    const collect = (node: BashNode): void => {
      if (node.type === "variable_assignment" && /\$\(|`|\$\{/.test(fieldOf(node, "value")?.text ?? "")) tainted.add(fieldOf(node, "name")?.text ?? "")
      node.children.forEach(collect)
    }
    collect(root)
    void assigned
    if (tainted.size === 0) return
    const walk = (node: BashNode, evaluating: boolean): void => {
      if (evaluating && (node.type === "variable_name" || node.type === "word") && tainted.has(node.text.replace(/^\$\{?|\}$/g, ""))) {
        this.deny(Rules.dynamicCommand, `$${node.text} holds command text and is evaluated arithmetically`)
      }
      const ev =
        evaluating ||
        node.type === "arithmetic_expansion" ||
        node.type === "test_command" ||
        node.type === "c_style_for_statement" ||
        node.type === "subscript" ||
        (node.type === "compound_statement" && node.text.startsWith("(("))
      node.children.forEach((c) => walk(c, ev))
    }
    walk(root, false)
  }

  /** Top-level statements in order: definite literal assignments update the scope as they are passed. */
  statements(root: BashNode, info: CommandInfo, assigned: ReadonlyMap<string, W.VarValue>): void {
    let current = info
    for (const child of root.children) {
      if (this.denial !== undefined) return
      current = this.step(child, current)
      this.definite(child, info.scope, assigned)
    }
  }

  /** Statements in order; a `cd` changes the folder later relative paths resolve against. */
  seq(children: ReadonlyArray<BashNode>, info: CommandInfo): CommandInfo {
    let current = info
    for (const child of children) {
      if (this.denial !== undefined) break
      current = this.step(child, current)
    }
    return current
  }

  step(child: BashNode, info: CommandInfo): CommandInfo {
    if (child.type === "list" || (child.type === "compound_statement" && !child.text.startsWith("(("))) return this.seq(child.children, info)
    this.visit(child, info)
    if (child.type === "command") {
      const name = fieldOf(child, "name")?.text
      if (name === "cd" || name === "pushd" || name === "popd") {
        const args = fieldsOf(child, "argument").flatMap((a) => W.expand(a, info.scope).fields)
        const operands = args.filter((f) => !W.text(f).startsWith("-"))
        const target = operands[0]
        if (name === "popd") return { ...info, cwd: unknownCwd }
        if (target === undefined) return { ...info, cwd: info.scope.home ?? unknownCwd }
        const t = W.literal(target)
        return { ...info, cwd: t === undefined || info.cwd === unknownCwd ? unknownCwd : P.resolve(info.cwd, t) }
      }
      return info
    }
    return changesDirectory(child) ? { ...info, cwd: unknownCwd } : info
  }

  definite(node: BashNode, scope: MutableScope, assigned: ReadonlyMap<string, W.VarValue>): void {
    const set = (a: BashNode) => {
      const name = fieldOf(a, "name")?.text
      if (name === undefined) return
      const v = assigned.get(name)
      if (v !== undefined && v !== "unknown") scope.vars.set(name, v)
    }
    if (node.type === "variable_assignment") set(node)
    else if (node.type === "variable_assignments") node.children.filter((c) => c.type === "variable_assignment").forEach(set)
    else if (node.type === "declaration_command") node.children.filter((c) => c.type === "variable_assignment").forEach(set)
    else if (node.type === "list") {
      const first = node.children.find((c) => c.named)
      if (first !== undefined) this.definite(first, scope, assigned)
    }
  }

  visit(node: BashNode, info: CommandInfo): void {
    if (this.denial !== undefined) return
    if (!node.named) return
    if (!knownKinds.has(node.type)) return this.deny(Rules.unknownNode, `the guard does not know the shell construct \`${node.type}\``)
    switch (node.type) {
      case "comment":
        return
      case "command":
        return this.command(node, info)
      case "pipeline": {
        const parts = node.children.filter((c) => c.named)
        parts.forEach((c, i) => {
          const previous = parts[i - 1]
          this.visit(c, i === 0 ? info : { ...info, stdin: { kind: "pipe", echoed: previous === undefined ? undefined : W.echoedWords(previous.text) } })
        })
        return
      }
      case "redirected_statement":
        return this.redirected(node, info)
      case "subshell":
      case "compound_statement":
      case "do_group":
      case "if_statement":
      case "elif_clause":
      case "else_clause":
      case "while_statement":
      case "case_statement":
      case "case_item":
      case "negated_command":
      case "list":
      case "program":
        this.seq(node.children, info)
        return
      case "c_style_for_statement":
      case "test_command":
        for (const c of node.children) this.visit(c, info)
        return
      case "for_statement":
        for (const c of node.children) {
          if (c.field === "value") this.word(c, info)
          else this.visit(c, info)
        }
        return
      case "function_definition": {
        const name = fieldOf(node, "name")?.text
        if (name !== undefined) this.functions.add(name)
        for (const c of node.children) if (c.field !== "name") this.visit(c, info)
        return
      }
      case "variable_assignment":
        return this.assignment(node, info, false)
      case "variable_assignments":
      case "declaration_command":
      case "unset_command":
        if (node.type === "declaration_command") return this.declaration(node, info)
        for (const c of node.children) this.visit(c, info)
        return
      case "command_substitution":
      case "process_substitution":
        // its own unit: judged like a statement list, with nothing on stdin
        for (const c of node.children) this.visit(c, { ...info, stdin: noStdin })
        return
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        this.redirect(node, info)
        return
      default:
        // word-level nodes: look inside for substitutions
        return this.word(node, info)
    }
  }

  /** Judges the substitutions inside a word; the word's value is judged by its command. */
  word(node: BashNode, info: CommandInfo): void {
    if (!knownKinds.has(node.type) && node.named) return this.deny(Rules.unknownNode, `the guard does not know the shell construct \`${node.type}\``)
    if (node.type === "command_substitution" || node.type === "process_substitution") return this.visit(node, info)
    for (const c of node.children) if (c.named) this.word(c, info)
  }

  assignment(node: BashNode, info: CommandInfo, prefix: boolean): void {
    const name = fieldOf(node, "name")?.text ?? ""
    const valueNode = fieldOf(node, "value")
    if (valueNode !== undefined) this.word(valueNode, info)
    const value = W.expandValue(valueNode, info.scope)
    if (value.problem !== undefined) return this.deny(Rules.dynamicCommand, value.problem)
    this.envVar(name, W.literal(value.field), prefix)
  }

  /** Variables that make later programs run code. */
  envVar(name: string, value: string | undefined, _prefix: boolean): void {
    const upper = name.toUpperCase()
    if (execVars.has(upper) || upper.startsWith("GIT_CONFIG_KEY_") || upper.startsWith("GIT_CONFIG_VALUE_") || upper.startsWith("BASH_FUNC_")) {
      return this.deny(Rules.inlineInterpreter, `${name}= makes programs run or load other code`)
    }
    if (pagerVars.has(upper) && (value === undefined || !benignPagers.test(value.trim()))) {
      return this.deny(Rules.inlineInterpreter, `${name}=${value ?? "…"} names a program to run; only plain pagers and editors pass`)
    }
    if (upper === "NODE_OPTIONS" && (value === undefined || /(^|\s)(-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print)\b/.test(value))) {
      return this.deny(Rules.inlineInterpreter, "NODE_OPTIONS loads code into every node process")
    }
    if ((upper === "RUBYOPT" || upper === "JAVA_TOOL_OPTIONS" || upper === "_JAVA_OPTIONS") && (value === undefined || /-r|agent/.test(value))) {
      return this.deny(Rules.inlineInterpreter, `${name} loads code into every process`)
    }
    if (/^PS[0-4]$/.test(upper) && (value === undefined || /\$\(|`/.test(value))) {
      return this.deny(Rules.inlineInterpreter, `${name} with a command substitution runs code on every prompt or trace line`)
    }
  }

  declaration(node: BashNode, info: CommandInfo): void {
    const keyword = node.children.find((c) => !c.named)?.text ?? node.text.split(/\s/)[0] ?? ""
    const assignments = node.children.filter((c) => c.type === "variable_assignment")
    const operands = node.children.filter((c) => c.named && c.type !== "variable_assignment")
    for (const a of assignments) this.assignment(a, info, false)
    for (const o of operands) this.word(o, info)
    const names = operands.filter((o) => !o.text.startsWith("-") && !o.text.startsWith("+"))
    const options = operands.filter((o) => o.text.startsWith("-") || o.text.startsWith("+")).map((o) => o.text).join("")
    this.simple([keyword, ...operands.map((o) => o.text), ...assignments.map((a) => a.text)])
    if (assignments.length === 0 && names.length === 0 && !/[fFn]/.test(options)) {
      this.deny(Rules.envDump, `\`${node.text}\` without names prints every variable, secrets included`)
    }
    if (/n/.test(options)) {
      // namerefs alias another variable: the indirection cannot be followed statically
      for (const a of assignments) info.scope.vars.set(fieldOf(a, "name")?.text ?? "", "unknown")
    }
  }

  redirected(node: BashNode, info: CommandInfo): void {
    const body = fieldOf(node, "body")
    const redirects = node.children.filter((c) => c.field === "redirect" || (c.named && c !== body && c.type.endsWith("redirect")))
    let stdin = info.stdin
    for (const r of redirects) {
      const s = this.redirect(r, info)
      if (s !== undefined) stdin = s
    }
    if (body === undefined) return
    if (body.type === "list") {
      // tree-sitter hangs `a && b > f` on the whole list; bash applies it to `b`, after any `cd` in `a`
      const after = this.seq(body.children, { ...info, stdin })
      if (after.cwd !== info.cwd) for (const r of redirects) this.redirect(r, after)
      return
    }
    this.visit(body, { ...info, stdin })
  }

  /** Judges one redirect; returns what it feeds to stdin, if anything. */
  redirect(node: BashNode, info: CommandInfo): Stdin | undefined {
    if (node.type === "heredoc_redirect") {
      const quoted = /['"\\]/.test(node.children.find((c) => c.type === "heredoc_start")?.text ?? "")
      let body = ""
      for (const c of node.children) {
        if (c.type === "heredoc_body") {
          body = c.text
          if (!quoted) this.word(c, info)
        } else if (c.type === "pipeline") {
          // `cat <<EOF | sh`: the rest of the pipeline reads what the first command writes
          c.children.filter((x) => x.named).forEach((x) => this.visit(x, { ...info, stdin: { kind: "pipe" } }))
        } else if (c.field === "redirect") this.redirect(c, info)
        else if (c.named && c.type !== "heredoc_start" && c.type !== "heredoc_end") this.visit(c, { ...info, stdin: noStdin })
      }
      return { kind: "heredoc", body }
    }
    if (node.type === "herestring_redirect") {
      const value = node.children.find((c) => c.named)
      if (value === undefined) return { kind: "herestring", body: undefined }
      this.word(value, info)
      const v = W.expandValue(value, info.scope)
      return { kind: "herestring", body: W.literal(v.field) }
    }
    // file_redirect
    const dest = fieldOf(node, "destination") ?? node.children.filter((c) => c.named && c.field !== "descriptor").pop()
    const op = node.children.filter((c) => !c.named).map((c) => c.text).join("")
    if (dest === undefined) return undefined
    this.word(dest, info)
    if (op === ">&" || op === "<&" || op === ">&-" || op === "<&-") {
      if (dest.type === "number" || /^\d+-?$|^-$/.test(dest.text)) return undefined
    }
    const expanded = W.expand(dest, info.scope)
    if (expanded.problem !== undefined) return void this.deny(Rules.dynamicCommand, expanded.problem)
    const reading = op === "<" || op === "<&"
    for (const f of expanded.fields) this.pathArg(f, reading ? "read" : "write", info.cwd, `redirect ${op}`)
    const from = expanded.fields.length === 1 ? W.literal(expanded.fields[0] ?? []) : undefined
    if (reading && (from === undefined || /^\/(dev\/(stdin|fd\/0)|proc\/self\/fd\/0)$/.test(from))) return { kind: "pipe" }
    return reading ? { kind: "file" } : undefined
  }

  command(node: BashNode, info: CommandInfo): void {
    let stdin = info.stdin
    const prefixes: Array<BashNode> = []
    const argNodes: Array<BashNode> = []
    for (const c of node.children) {
      if (!c.named) continue
      if (c.type === "variable_assignment") prefixes.push(c)
      else if (c.field === "redirect" || c.type.endsWith("redirect")) {
        const s = this.redirect(c, info)
        if (s !== undefined) stdin = s
      } else if (c.field === "name" || c.field === "argument" || wordKinds.has(c.type)) argNodes.push(c)
      else this.visit(c, info)
    }
    for (const p of prefixes) this.assignment(p, info, true)
    const argv: Array<W.Field> = []
    let substitution = false
    let procSub = false
    for (const a of argNodes) {
      const target = a.type === "command_name" ? a.children.find((c) => c.named) ?? a : a
      this.word(target, info)
      if (!knownKinds.has(target.type)) return this.deny(Rules.unknownNode, `the guard does not know the shell construct \`${target.type}\``)
      const e = W.expand(target, info.scope)
      if (e.problem !== undefined) return this.deny(Rules.dynamicCommand, e.problem)
      if (e.overflow) return this.deny(Rules.tooLarge, "brace expansion produces more words than the guard judges")
      substitution = substitution || e.commandSubstitution
      procSub = procSub || e.processSubstitution
      if (a.type === "command_name" && e.fields.length === 0) return this.deny(Rules.dynamicCommand, `the command name \`${a.text}\` expands to nothing known`)
      // A command name made by a substitution is not a literal word, even when its output is known (`$(echo rm)`).
      if (a.type === "command_name" && e.commandSubstitution) {
        return this.deny(Rules.dynamicCommand, `the command name \`${a.text}\` comes from a command substitution`)
      }
      argv.push(...e.fields)
    }
    if (this.denial !== undefined) return
    if (argv.length === 0) return
    this.argv(argv, { ...info, stdin }, { substitution, procSub, privileged: false, text: node.text })
  }

  /** Records one simple command for the allowlist. */
  simple(argv: ReadonlyArray<string>, full?: ReadonlyArray<string>): void {
    if (argv.length === 0 || trivialCommands.has(argv[0] ?? "")) return
    this.simpleCommands++
    const matched = this.ctx.allowlist.some((e) => matchesArgv(e, argv) || (full !== undefined && matchesArgv(e, full)))
    if (!matched) {
      this.allMatched = false
      if (this.unmatched === undefined) this.unmatched = argv.join(" ")
    }
  }

  /** Re-enters the shell with a script string. */
  script(source: string, info: CommandInfo, what: string): void {
    if (source.length > maxCommandLength) return this.deny(Rules.tooLarge, `${what} is longer than the guard judges`)
    const ast = this.ctx.reparse(source)
    if (ast === undefined) return this.deny(Rules.parseError, `${what} could not be parsed`)
    this.unit(ast, info.scope, info.cwd, info.depth + 1, info.stdin)
  }

  /** A simple command, normalised: wrappers stripped to a fixed point, then judged by name. */
  argv(argv: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void {
    let args = argv
    let privileged = flags.privileged
    const full = argv.map((f) => W.text(f))
    for (let round = 0; round < 64 && this.denial === undefined; round++) {
      const head = args[0]
      if (head === undefined) return
      const name = W.literal(head)
      if (name === undefined) {
        return this.deny(Rules.dynamicCommand, `the command name \`${W.text(head).replace(/\uE000/g, "$…")}\` is not a literal word`)
      }
      if (name === "") return this.deny(Rules.dynamicCommand, "the command name is empty")
      if (reservedWords.has(name)) return this.deny(Rules.parseError, `the reserved word \`${name}\` stands where a command should: the parser and bash would disagree`)
      const base = name.includes("/") ? P.basename(name) : name
      const rest = args.slice(1)
      const step = this.unwrap(base, rest, info, flags)
      if (step === "done") return
      if (step === "judge") {
        // behind sudo/doas/chroot only the full command line can match: approving `npm test` is not `sudo npm test`
        const normalised = args.map((f) => W.text(f))
        this.simple(privileged ? full : normalised, privileged ? undefined : full)
        return this.judgeSimple(base, name, rest, info, flags)
      }
      if (step.privileged) privileged = true
      args = step.args
      if (step.cwd !== undefined) info = { ...info, cwd: step.cwd }
    }
    if (this.denial === undefined) this.deny(Rules.tooLarge, "too many nested wrappers")
  }

  /** Strips one wrapper (`env`, `sudo`, `timeout`…) or re-enters the shell; "judge" when `base` is the command. */
  unwrap(base: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): Unwrapped {
    const lits = rest.map((f) => W.literal(f))
    const next = (i: number, extra: Partial<Step> = {}): Step => ({ args: rest.slice(i), privileged: false, ...extra })
    switch (base) {
      case "env": {
        let i = 0
        let clean = false
        let cwd: string | undefined
        for (; i < rest.length; i++) {
          const a = lits[i]
          if (a === undefined) return "judge"
          if (a === "--") {
            i++
            break
          }
          if (a === "-i" || a === "--ignore-environment" || a === "-") clean = true
          else if (a === "-u" || a === "--unset") i++
          else if (a === "-C" || a === "--chdir") {
            cwd = P.resolve(info.cwd, lits[i + 1] ?? "")
            i++
          } else if (a === "-S" || a === "--split-string" || a.startsWith("--split-string=") || /^-[a-zA-Z]*S/.test(a)) {
            const inline = a.startsWith("--split-string=") ? a.slice(15) : /^-[a-zA-Z]*S(.+)$/.exec(a)?.[1]
            const str = inline ?? lits[i + 1]
            if (str === undefined) return this.deny(Rules.dynamicCommand, "env -S with a non-literal string"), "done"
            const tail = rest.slice(inline === undefined ? i + 2 : i + 1).map((f) => W.text(f)).join(" ")
            this.script(`${str} ${tail}`, info, "env -S")
            return "done"
          } else if (a.startsWith("-")) continue
          else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
            const eq = a.indexOf("=")
            this.envVar(a.slice(0, eq), a.slice(eq + 1), true)
          } else break
        }
        if (i >= rest.length) {
          if (!clean) this.deny(Rules.envDump, "env without a command prints every variable, secrets included")
          return "done"
        }
        return next(i, cwd === undefined ? {} : { cwd })
      }
      case "command": {
        let i = 0
        for (; i < rest.length; i++) {
          const a = lits[i]
          if (a === undefined || !a.startsWith("-") || a === "-") break
          if (/[vV]/.test(a)) return "done"
        }
        return next(i)
      }
      case "builtin":
      case "nohup":
      case "coproc":
      case "busybox":
      case "dbus-run-session":
      case "catchsegv":
      case "pkexec":
        return next(base === "pkexec" ? skipOptions(lits, 0, pkexecValued) : 0, { privileged: base === "pkexec" })
      case "exec":
        return next(skipOptions(lits, 0, execValued))
      case "time":
        return next(skipOptions(lits, 0, timeValued))
      case "nice":
        return next(skipOptions(lits, 0, niceValued))
      case "setsid":
      case "caffeinate":
        return next(skipOptions(lits, 0, setsidValued))
      case "stdbuf":
        return next(skipOptions(lits, 0, stdbufValued))
      case "timeout": {
        const i = skipOptions(lits, 0, timeoutValued)
        return next(i + 1)
      }
      case "ionice": {
        if (lits.some((a) => a === "-p" || a === "-P" || a === "-u")) return "done"
        return next(skipOptions(lits, 0, ioniceValued))
      }
      case "taskset": {
        if (lits.some((a) => a !== undefined && /^-[a-z]*p/.test(a))) return "done"
        const i = skipOptions(lits, 0, noValued)
        return next(i + 1)
      }
      case "chrt": {
        const i = skipOptions(lits, 0, noValued)
        return next(i + 1)
      }
      case "numactl":
      case "firejail":
      case "proxychains":
      case "proxychains4":
      case "torsocks":
      case "tsocks":
      case "unshare":
      case "nsenter":
      case "faketime":
      case "strace":
      case "ltrace":
      case "systemd-run":
      case "xvfb-run": {
        const i = skipOptions(lits, 0, sandboxValued)
        return next(base === "faketime" ? i + 1 : i, { privileged: base === "unshare" || base === "nsenter" })
      }
      case "chroot": {
        const i = skipOptions(lits, 0, chrootValued)
        return next(i + 1, { privileged: true })
      }
      case "sudo":
      case "doas": {
        const i = skipOptions(lits, 0, sudoValued)
        if (i >= rest.length) {
          if (lits.some((a) => a !== undefined && /^-[a-zA-Z]*[si]/.test(a))) return { args: [W.fromString("sh")], privileged: true }
          return "done"
        }
        return next(i, { privileged: true })
      }
      case "su":
      case "runuser":
      case "sg": {
        const c = lits.findIndex((a) => a === "-c" || a === "--command" || a === "--session-command")
        if (c >= 0) {
          const str = lits[c + 1]
          if (str === undefined) return this.deny(Rules.dynamicCommand, `${base} -c with a non-literal string`), "done"
          this.script(str, info, `${base} -c`)
          return "done"
        }
        return { args: [W.fromString("sh")], privileged: true }
      }
      case "script": {
        const c = lits.findIndex((a) => a === "-c" || a === "--command")
        if (c < 0) return "done"
        const str = lits[c + 1]
        if (str === undefined) return this.deny(Rules.dynamicCommand, "script -c with a non-literal string"), "done"
        this.script(str, info, "script -c")
        return "done"
      }
      case "flock": {
        const c = lits.findIndex((a) => a === "-c" || a === "--command")
        if (c >= 0) {
          const str = lits[c + 1]
          if (str === undefined) return this.deny(Rules.dynamicCommand, "flock -c with a non-literal string"), "done"
          this.script(str, info, "flock -c")
          return "done"
        }
        const i = skipOptions(lits, 0, flockValued)
        return next(i + 1)
      }
      case "watch": {
        const i = skipOptions(lits, 0, watchValued)
        if (lits.slice(0, i).some((a) => a === "-x" || a === "--exec")) return next(i)
        const joined = rest.slice(i).map((f) => W.literal(f))
        if (joined.some((s) => s === undefined)) return this.deny(Rules.dynamicCommand, "watch runs a non-literal string through sh -c"), "done"
        this.script(joined.join(" "), info, "watch")
        return "done"
      }
      case "xargs": {
        const i = skipOptions(lits, 0, xargsValued)
        const replace = lits.slice(0, i).findIndex((a) => a === "-I" || a === "-i" || a?.startsWith("--replace") === true || a?.startsWith("-I") === true)
        const argFile = lits.findIndex((a) => a === "-a" || a === "--arg-file")
        if (argFile >= 0 && argFile < i) {
          const f = rest[argFile + 1]
          if (f !== undefined) this.pathArg(f, "read", info.cwd, "xargs -a")
        }
        const inner = rest.slice(i)
        if (inner.length === 0) return { args: [W.fromString("echo"), [W.unknownCh]], privileged: false }
        if (replace >= 0) {
          const r = lits[replace] ?? "-I"
          const token = r === "-I" ? lits[replace + 1] ?? "{}" : r === "-i" ? "{}" : r.startsWith("-I") ? r.slice(2) : r.slice(10) || "{}"
          return { args: inner.map((f) => replaceToken(f, token, [W.unknownCh])), privileged: false }
        }
        // `echo .env | xargs cat`: the words are known, so they are judged as the arguments they become.
        const stdin = info.stdin
        const fed = stdin.kind === "pipe" && stdin.echoed !== undefined ? stdin.echoed.split(" ").map(W.fromString) : [[W.unknownCh]]
        return { args: [...inner, ...fed], privileged: false }
      }
      default:
        return "judge"
    }
  }

  /** The deny families, on a normalised command. */
  judgeSimple(base: string, name: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void {
    const lits = rest.map((f) => W.literal(f))
    const words = rest.map((f) => W.text(f))
    // anywhere: /proc/*/environ, /dev/tcp
    for (const f of rest) {
      const t = W.text(f)
      if (/\/dev\/(tcp|udp)\//.test(t)) return this.deny(Rules.exfiltration, `${t} opens a network connection`)
    }
    if (shells.has(base)) return this.shell(base, rest, info, flags)
    switch (base) {
      case "eval": {
        if (lits.some((s) => s === undefined)) return this.deny(Rules.dynamicCommand, "eval of a string that is not literal")
        return this.script(lits.join(" "), info, "eval")
      }
      case "source":
      case ".": {
        const f = rest[0]
        if (f === undefined) return
        if (flags.procSub || W.hasUnknown(f) && W.text(f) === "\uE000") return this.deny(Rules.inlineInterpreter, `${base} of a process substitution or unknown file runs code the guard cannot see`)
        const t = W.literal(f)
        if (t === "/dev/stdin" || t === "-" || t === "/dev/fd/0" || t === "/proc/self/fd/0") return this.deny(Rules.inlineInterpreter, `${base} ${t} runs code fed on stdin`)
        this.pathArg(f, "read", info.cwd, base)
        return
      }
      case "trap": {
        const action = lits[0]
        if (rest.length >= 2 && action !== "-" && action !== "" && !/^-[lp]$/.test(action ?? "")) {
          if (action === undefined) return this.deny(Rules.dynamicCommand, "trap with a non-literal action")
          if (!/^(SIG)?[A-Z0-9]+$/.test(action)) return this.script(action, { ...info, stdin: noStdin }, "trap")
        }
        return
      }
      case "alias": {
        for (const a of lits) {
          if (a === undefined) return this.deny(Rules.dynamicCommand, "alias with a non-literal value")
          const eq = a.indexOf("=")
          if (eq > 0) this.script(a.slice(eq + 1), { ...info, stdin: noStdin }, "alias")
        }
        return
      }
      case "printenv":
        if (!lits.some((a) => a !== undefined && !a.startsWith("-"))) return this.deny(Rules.envDump, "printenv without a name prints every variable, secrets included")
        break
      case "set":
        if (rest.length === 0) return this.deny(Rules.envDump, "set without arguments prints every variable, secrets included")
        break
      case "export":
      case "declare":
      case "typeset":
      case "local":
      case "readonly": {
        const names = lits.filter((a) => a === undefined || !/^[-+]/.test(a))
        const opts = lits.filter((a) => a !== undefined && /^[-+]/.test(a)).join("")
        if (names.length === 0 && !/[fF]/.test(opts)) return this.deny(Rules.envDump, `${base} without names prints every variable, secrets included`)
        for (const a of lits) if (a !== undefined && a.includes("=")) this.envVar(a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1), false)
        break
      }
      case "compgen":
        if (lits.some((a) => a !== undefined && (/^-[a-zA-Z]*[ve]/.test(a) || a === "variable" || a === "export"))) {
          return this.deny(Rules.envDump, "compgen -v lists every variable")
        }
        break
      case "ps":
        if (lits.some((a) => a !== undefined && ((!a.startsWith("-") && /e/.test(a) && /^[a-zA-Z]+$/.test(a)) || a === "-E"))) {
          return this.deny(Rules.envDump, "ps e prints the environment of processes")
        }
        break
    }
    // network and upload
    if (networkCommands.has(base)) {
      this.network(base, rest, lits, info, flags)
      if (this.denial !== undefined) return
    }
    const interp = interpreterName(base)
    if (interp !== undefined) {
      this.interpreter(base, interp, rest, lits, info, flags)
      if (this.denial !== undefined) return
    }
    switch (base) {
      case "awk":
      case "gawk":
      case "mawk":
      case "nawk":
      case "busybox-awk":
        this.awk(rest, lits, info)
        break
      case "sed":
      case "gsed":
        this.sed(rest, lits, info)
        break
      case "find":
      case "gfind":
        return this.find(rest, lits, info, flags)
      case "tar":
      case "gtar":
      case "bsdtar":
        this.tar(rest, lits, info)
        break
      case "git":
        return this.git(rest, lits, info, flags)
      case "dd":
        this.dd(rest, info)
        break
      case "shred":
      case "wipefs":
      case "fdisk":
      case "sfdisk":
      case "parted":
      case "sgdisk":
      case "mkswap":
      case "mke2fs":
      case "badblocks":
        for (const w of words) if (deviceTarget.test(w)) return this.deny(Rules.destruction, `${base} on ${w} destroys a disk`)
        if (base !== "shred") return this.deny(Rules.destruction, `${base} rewrites disks or partitions`)
        break
      case "rm":
      case "rmdir":
      case "unlink":
      case "chmod":
      case "chown":
      case "chgrp":
      case "mv":
        this.destruction(base, rest, lits, info)
        break
      case "crontab":
        if (!lits.some((a) => a === "-l")) return this.deny(Rules.inlineInterpreter, "crontab installs commands that run later, outside the guard")
        break
      case "at":
      case "batch":
        return this.deny(Rules.inlineInterpreter, `${base} schedules commands that run later, outside the guard`)
      case "mkfifo":
        break
    }
    if (/^mkfs(\.|$)/.test(base)) {
      return this.deny(Rules.destruction, `${base} formats a file system`)
    }
    if (this.denial !== undefined) return
    this.paths(base, rest, lits, info)
  }

  shell(base: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void {
    const lits = rest.map((f) => W.literal(f))
    let i = 0
    let command = false
    let stdinScript = false
    for (; i < rest.length; i++) {
      const a = lits[i]
      if (a === undefined) break
      if (a === "--" || a === "-") {
        i++
        stdinScript = a === "-"
        break
      }
      if (/^[-+]o$/.test(a) || a === "--rcfile" || a === "--init-file") {
        const file = rest[i + 1]
        if (a !== "-o" && a !== "+o" && file !== undefined) this.pathArg(file, "read", info.cwd, base)
        i++
        continue
      }
      if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command") command = true
      if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(a)) stdinScript = true
      if (!a.startsWith("-") && !a.startsWith("+")) break
    }
    if (command) {
      const str = rest[i]
      if (str === undefined) return this.deny(Rules.parseError, `${base} -c without a command`)
      const s = W.literal(str)
      if (s === undefined) return this.deny(Rules.dynamicCommand, `${base} -c runs a string that is not literal`)
      return this.script(s, { ...info, stdin: noStdin }, `${base} -c`)
    }
    const scriptArg = stdinScript ? undefined : rest[i]
    if (scriptArg !== undefined) {
      if (flags.procSub && W.text(scriptArg) === "\uE000") return this.deny(Rules.inlineInterpreter, `${base} <(…) runs a script the guard cannot see`)
      const t = W.literal(scriptArg)
      if (t === "/dev/stdin" || t === "/dev/fd/0" || t === "/proc/self/fd/0") return this.stdinScript(base, info)
      if (t === undefined && W.text(scriptArg) === "\uE000") return this.deny(Rules.inlineInterpreter, `${base} runs a script whose name is not known`)
      this.pathArg(scriptArg, "read", info.cwd, base)
      return
    }
    return this.stdinScript(base, info)
  }

  /** A shell reading its script from stdin. */
  stdinScript(base: string, info: CommandInfo): void {
    const stdin = info.stdin
    switch (stdin.kind) {
      case "heredoc":
        return this.script(stdin.body, { ...info, stdin: noStdin }, `the heredoc fed to ${base}`)
      case "herestring":
        if (stdin.body === undefined) return this.deny(Rules.dynamicCommand, `${base} reads a script from a string that is not literal`)
        return this.script(stdin.body, { ...info, stdin: noStdin }, `the here-string fed to ${base}`)
      case "pipe":
        return this.deny(Rules.inlineInterpreter, `piping into ${base} runs code the guard cannot see`)
      case "file":
      case "none":
        return
    }
  }

  interpreter(base: string, family: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void {
    const inline = interpreters.get(family)
    if (family === "irb" || family === "jshell") {
      if (info.stdin.kind !== "none" && info.stdin.kind !== "file") return this.deny(Rules.inlineInterpreter, `${base} fed on stdin runs code the guard cannot see`)
      return
    }
    let script: W.Field | undefined
    let module = false
    for (let i = 0; i < rest.length; i++) {
      const a = lits[i]
      if (a === undefined) {
        script = rest[i]
        break
      }
      if (inline !== undefined && inline.test(a) && a !== "") {
        return this.deny(Rules.inlineInterpreter, `${base} ${a} runs program text given on the command line`)
      }
      if (family === "deno" && (a === "run" || a === "task" || a === "test" || a === "fmt" || a === "lint" || a === "check" || a === "compile" || a === "bench" || a === "serve")) {
        const target = lits.slice(i + 1).find((x) => x === undefined || !x.startsWith("-"))
        if (target === "-" || (target !== undefined && /^https?:/.test(target))) return this.deny(Rules.inlineInterpreter, `deno ${a} ${target} runs code the guard cannot see`)
        return
      }
      if (a === "-m" && (family === "python" || family === "pypy")) {
        module = true
        break
      }
      if (a === "-") {
        script = W.fromString("-")
        break
      }
      if (interpreterValueOptions.has(a)) {
        i++
        continue
      }
      if (a.startsWith("-")) continue
      script = rest[i]
      break
    }
    if (module) return
    const scriptText = script === undefined ? undefined : W.literal(script)
    if (script !== undefined && flags.procSub && W.text(script) === "\uE000") {
      return this.deny(Rules.inlineInterpreter, `${base} <(…) runs a script the guard cannot see`)
    }
    if (scriptText !== undefined && /^https?:\/\//.test(scriptText)) return this.deny(Rules.inlineInterpreter, `${base} runs a remote script`)
    if (script === undefined || scriptText === "-" || scriptText === "/dev/stdin") {
      if (info.stdin.kind === "heredoc" || info.stdin.kind === "herestring" || info.stdin.kind === "pipe") {
        return this.deny(Rules.inlineInterpreter, `${base} fed by a ${info.stdin.kind} runs code the guard cannot see`)
      }
      if (scriptText === "-" || scriptText === "/dev/stdin") return this.deny(Rules.inlineInterpreter, `${base} reading its program from stdin`)
    }
  }

  network(base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void {
    if (flags.substitution || flags.procSub) return this.deny(Rules.exfiltration, `${base} with a command substitution in its arguments can send command output`)
    if (socketCommands.has(base)) return this.deny(Rules.exfiltration, `${base} opens raw network connections`)
    if (base === "openssl" && lits.some((a) => a === "s_client" || a === "s_server")) return this.deny(Rules.exfiltration, "openssl s_client opens raw network connections")
    if (base === "ssh") {
      if (lits.length === 1 && (lits[0] === "-V" || lits[0] === "-G")) return
      return this.deny(Rules.exfiltration, "ssh connects to another host")
    }
    if (base === "scp" || base === "rsync" || base === "rclone" || base === "gsutil" || base === "s3cmd") {
      const remote = lits.find((a) => a === undefined || /^[^/.-][^/]*:/.test(a) || /^(rsync|s3|gs):\/\//.test(a))
      if (remote !== undefined || lits.some((a) => a === "-e" || a?.startsWith("--rsh") === true)) {
        return this.deny(Rules.exfiltration, `${base} to a remote host`)
      }
      return
    }
    if (base === "curl") {
      for (let i = 0; i < lits.length; i++) {
        const a = lits[i]
        if (a === undefined) continue
        const value = lits[i + 1]
        const long = /^--(data|data-binary|data-urlencode|data-ascii|json|form|form-string|upload-file|config)(=(.*))?$/.exec(a)
        if (long !== null) {
          const v = long[3] ?? value
          const opt = long[1] ?? ""
          if (opt === "upload-file" || opt === "config") return this.deny(Rules.exfiltration, `curl --${opt} sends a file`)
          if (v === undefined || /(^|=)@|^<|=</.test(v) || (opt === "form" && /[@<]/.test(v)) || (opt === "data-urlencode" && /^[^=]*@/.test(v))) return this.deny(Rules.exfiltration, `curl --${opt} ${v ?? "…"} uploads a file or stdin`)
          continue
        }
        if (/^-[a-zA-Z]*[TK]/.test(a) && !a.startsWith("--")) return this.deny(Rules.exfiltration, `curl ${a} uploads a file`)
        const short = /^-[a-zA-Z]*([dF])(.*)$/.exec(a)
        if (short !== null && !a.startsWith("--")) {
          const v = short[2] !== "" ? short[2] : value
          if (v === undefined || /(^|=)@|^<|=</.test(v) || (short[1] === "F" && /[@<]/.test(v))) return this.deny(Rules.exfiltration, `curl ${a} uploads a file or stdin`)
        }
        if (a.startsWith("file:")) this.pathArg(W.fromString(a.replace(/^file:\/\/(localhost)?/, "")), "read", info.cwd, "curl")
      }
      this.outputs(rest, lits, info, curlOutputs, "curl")
      return
    }
    if (base === "wget") {
      const bad = lits.find((a) => a !== undefined && /^--(post|body)-(data|file)|^--method/.test(a))
      if (bad !== undefined) return this.deny(Rules.exfiltration, `wget ${bad} sends data`)
      this.outputs(rest, lits, info, wgetOutputs, "wget")
      const pfx = lits.findIndex((a) => a === "-P" || a === "--directory-prefix")
      if (pfx >= 0 && rest[pfx + 1] !== undefined) this.pathArg(rest[pfx + 1] ?? [], "write", info.cwd, "wget -P")
      return
    }
    if (base === "http" || base === "https" || base === "xh" || base === "xhs" || base === "httpie") {
      const upload = lits.find((a) => a === undefined || /^[^-=:@][^=:@]*(=@|:=@|@)/.test(a) || a.startsWith("@"))
      if (upload !== undefined) return this.deny(Rules.exfiltration, `${base} ${upload ?? "…"} uploads a file`)
      if (info.stdin.kind !== "none" && !lits.includes("--ignore-stdin")) return this.deny(Rules.exfiltration, `${base} sends what it reads on stdin`)
      return
    }
    if (base === "aria2c" || base === "lftp") return
  }

  /** `-o FILE` style options are writes. */
  outputs(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, options: ReadonlySet<string>, what: string): void {
    for (let i = 0; i < lits.length; i++) {
      const a = lits[i]
      if (a === undefined) continue
      const eq = a.indexOf("=")
      if (a.startsWith("--") && eq > 0 && options.has(a.slice(0, eq))) this.pathArg(W.fromString(a.slice(eq + 1)), "write", info.cwd, what)
      else if (options.has(a)) {
        const f = rest[i + 1]
        if (f !== undefined && W.literal(f) !== "-") this.pathArg(f, "write", info.cwd, what)
        i++
      } else {
        const short = /^(-[a-zA-Z])(.+)$/.exec(a)
        if (short !== null && options.has(short[1] ?? "") && !a.startsWith("--")) this.pathArg(W.fromString(short[2] ?? ""), "write", info.cwd, what)
      }
    }
  }

  awk(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void {
    let program: string | undefined
    let hasProgramFile = false
    for (let i = 0; i < lits.length; i++) {
      const a = lits[i]
      if (a === undefined) {
        if (program === undefined && !hasProgramFile) return this.deny(Rules.dynamicCommand, "awk program is not literal")
        continue
      }
      if (a === "-f" || a === "--file") {
        hasProgramFile = true
        i++
        continue
      }
      if (a === "-v" || a === "-F" || a === "--assign" || a === "--field-separator") {
        i++
        continue
      }
      if (a.startsWith("-") && program === undefined) continue
      if (program === undefined && !hasProgramFile) {
        program = a
        continue
      }
      this.pathArg(rest[i] ?? [], "read", info.cwd, "awk")
    }
    if (program === undefined) return
    const code = program.replace(/\|\|/g, " ")
    if (/\bsystem\s*\(|\|\s*&?\s*getline|\|&|\|\s*["a-zA-Z_(]|[")]\s*\|/.test(code)) return this.deny(Rules.inlineInterpreter, "awk program runs shell commands (system() or a pipe)")
    if (/\bENVIRON\b/.test(code) && /\bin\s+ENVIRON\b/.test(code)) return this.deny(Rules.envDump, "awk program dumps ENVIRON")
    for (const m of code.matchAll(/>>?\s*"([^"]*)"/g)) this.pathArg(W.fromString(m[1] ?? ""), "write", info.cwd, "awk >")
    for (const m of code.matchAll(/getline\s*<\s*"([^"]*)"/g)) this.pathArg(W.fromString(m[1] ?? ""), "read", info.cwd, "awk getline")
  }

  sed(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void {
    const scripts: Array<string> = []
    const files: Array<W.Field> = []
    let inPlace = false
    let scriptFromOption = false
    for (let i = 0; i < lits.length; i++) {
      const a = lits[i]
      if (a === undefined) {
        if (!scriptFromOption && scripts.length === 0) return this.deny(Rules.dynamicCommand, "sed script is not literal")
        files.push(rest[i] ?? [])
        continue
      }
      if (a === "-e" || a === "--expression") {
        const s = lits[i + 1]
        if (s === undefined) return this.deny(Rules.dynamicCommand, "sed script is not literal")
        scripts.push(s)
        scriptFromOption = true
        i++
      } else if (a.startsWith("--expression=")) {
        scripts.push(a.slice(13))
        scriptFromOption = true
      } else if (a === "-f" || a === "--file") {
        scriptFromOption = true
        i++
      } else if (/^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place")) inPlace = true
      else if (a === "-l" || a === "--line-length") i++
      else if (a.startsWith("-") && a !== "-") continue
      else if (!scriptFromOption && scripts.length === 0) scripts.push(a)
      else files.push(rest[i] ?? [])
    }
    for (const s of scripts) {
      const verdict = sedScript(s)
      if (verdict.exec) return this.deny(Rules.inlineInterpreter, "sed script runs a shell command (the e command or s///e)")
      for (const w of verdict.writes) this.pathArg(W.fromString(w), "write", info.cwd, "sed w")
      for (const r of verdict.reads) this.pathArg(W.fromString(r), "read", info.cwd, "sed r")
    }
    for (const f of files) this.pathArg(f, inPlace ? "write" : "read", info.cwd, inPlace ? "sed -i" : "sed")
  }

  find(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void {
    const starts: Array<W.Field> = []
    let i = 0
    for (; i < rest.length; i++) {
      const a = lits[i]
      if (a !== undefined && (a.startsWith("-") || a === "(" || a === "!" || a === ")")) {
        if (["-H", "-L", "-P"].includes(a) || /^-O\d$/.test(a)) continue
        if (a === "-D") {
          i++
          continue
        }
        break
      }
      starts.push(rest[i] ?? [])
    }
    if (starts.length === 0) starts.push(W.fromString("."))
    let filtered = false
    let namesSecret = false
    for (; i < rest.length; i++) {
      const a = lits[i]
      if (a === undefined) continue
      if (/^-(i?name|i?path|i?wholename|i?regex|type|newer|mtime|mmin|size|empty|user|perm|links|inum|samefile|iname|lname|ilname|maxdepth|mindepth)$/.test(a)) filtered = true
      if (/^-(i?name|i?path|i?wholename)$/.test(a)) {
        const pat = rest[i + 1]
        if (pat !== undefined) {
          const globbed = pat.map((ch) => (ch.k === "q" && W.globChars.has(ch.c) ? W.ch(ch.c, "src") : ch))
          const j = judgePath(globbed.length > 0 && globbed[0]?.c !== "/" ? [...W.fromString("/x/"), ...globbed] : globbed, info.cwd, this.root)
          if (j.protectedBy !== undefined && j.protectedBy.kind === "secret") namesSecret = true
        }
      }
      if (a === "-delete") {
        for (const s of starts) {
          if (filtered) this.broad([...s, ...W.fromString("/"), W.subCh], info, "find -delete", false)
          else this.broad(s, info, "find -delete", true)
          this.pathArg(s, "write", info.cwd, "find -delete")
        }
      }
      if (/^-(fprint|fprint0|fprintf|fls)$/.test(a)) this.pathArg(rest[i + 1] ?? [], "write", info.cwd, `find ${a}`)
      if (/^-(exec|execdir|ok|okdir)$/.test(a)) {
        let j = i + 1
        const inner: Array<W.Field> = []
        for (; j < rest.length; j++) {
          const t = lits[j]
          if (t === ";" || t === "+") break
          inner.push(rest[j] ?? [])
        }
        i = j
        const head = inner[0] === undefined ? undefined : W.literal(inner[0])
        const headBase = head === undefined ? undefined : P.basename(head)
        if (headBase !== undefined && (shells.has(headBase) || interpreterName(headBase) !== undefined || headBase === "eval")) {
          return this.deny(Rules.inlineInterpreter, `find ${a} ${headBase} runs a shell or interpreter on every file`)
        }
        if (namesSecret && headBase !== undefined && !nonReaders.has(headBase)) return this.deny(Rules.secretRead, `find ${a} ${headBase} on files named like secrets`)
        for (const s of starts) {
          // `{}` is a path strictly below the start when a test filters, else possibly the start itself
          const found: W.Field = filtered ? [...s, ...W.fromString("/"), W.subCh] : s
          const argv = inner.map((f) => replaceToken(f, "{}", found))
          this.argv(argv, { ...info, stdin: noStdin }, { ...flags, procSub: false, substitution: false })
          if (this.denial !== undefined) return
        }
      }
    }
    this.simple(["find", ...rest.map((f) => W.text(f))])
    for (const s of starts) {
      if (this.denial !== undefined) return
      this.pathArg(s, "list", info.cwd, "find")
    }
  }

  tar(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void {
    const bad = lits.find(
      (a) =>
        a !== undefined &&
        (/^--(checkpoint-action|to-command|use-compress-program|rsh-command|info-script|new-volume-script|index-file)/.test(a) ||
          a === "-I" || a === "-F")
    )
    if (bad !== undefined) return this.deny(Rules.inlineInterpreter, `tar ${bad} runs a program`)
    const mode = lits.find((a) => a !== undefined && /^-?[a-zA-Z]+$/.test(a)) ?? ""
    const creating = /c|r|u/.test(mode.replace(/^-/, "")) && !mode.startsWith("--")
    const extracting = /x/.test(mode.replace(/^-/, ""))
    for (let i = 0; i < lits.length; i++) {
      const a = lits[i]
      if (a === "-f" || a === "--file" || (a !== undefined && /^-?[a-zA-Z]*f$/.test(a) && i === lits.indexOf(mode))) {
        const f = rest[i + 1]
        if (f !== undefined && W.literal(f) !== "-") this.pathArg(f, creating ? "write" : "read", info.cwd, "tar -f")
        i++
      } else if (a === "-C" || a === "--directory") {
        const d = rest[i + 1]
        if (d !== undefined && extracting) this.pathArg(d, "write", info.cwd, "tar -C")
        i++
      } else if (a !== undefined && a.startsWith("--file=")) this.pathArg(W.fromString(a.slice(7)), creating ? "write" : "read", info.cwd, "tar --file")
    }
  }

  git(rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, _flags: ArgvFlags): void {
    let i = 0
    let cwd = info.cwd
    for (; i < lits.length; i++) {
      const a = lits[i]
      if (a === undefined) return this.deny(Rules.dynamicCommand, "git option is not literal")
      if (a === "-c") {
        const kv = lits[i + 1]
        if (kv === undefined) return this.deny(Rules.dynamicCommand, "git -c value is not literal")
        const key = kv.split("=")[0] ?? ""
        if (gitExecKey(key)) {
          const value = kv.slice(key.length + 1)
          if (!(/pager|editor/i.test(key) && benignPagers.test(value.trim()))) return this.deny(Rules.inlineInterpreter, `git -c ${key}=… runs a program`)
        }
        i++
        continue
      }
      if (a.startsWith("--config-env") || a.startsWith("--exec-path=") || a === "--exec-path") {
        if (a === "--exec-path") continue
        return this.deny(Rules.inlineInterpreter, `git ${a} can run other programs`)
      }
      if (a === "-C") {
        cwd = P.resolve(cwd, lits[i + 1] ?? "")
        i++
        continue
      }
      if (a === "--git-dir" || a === "--work-tree" || a === "--namespace" || a === "--super-prefix") {
        i++
        continue
      }
      if (a.startsWith("-")) continue
      break
    }
    const sub = lits[i]
    const args = lits.slice(i + 1)
    const info2 = { ...info, cwd }
    this.simple(["git", ...rest.slice(i).map((f) => W.text(f))])
    const has = (re: RegExp) => args.some((a) => a !== undefined && re.test(a))
    switch (sub) {
      case "clean":
        if (has(/^-[a-zA-Z]*x/) || has(/^--ignored$/)) return this.deny(Rules.destruction, "git clean -x deletes ignored files too (.env, build caches, local config)")
        return
      case "config": {
        const kv = args.filter((a) => a !== undefined && !a.startsWith("-"))
        const key = kv[0]
        if (key !== undefined && gitExecKey(key) && kv.length >= 2 && !has(/^--(get|list|unset|get-all|get-regexp)/)) {
          const value = kv[1] ?? ""
          if (!(/pager|editor/i.test(key) && benignPagers.test(value.trim()))) return this.deny(Rules.inlineInterpreter, `git config ${key} installs a program to run`)
        }
        if (args.some((a) => a === undefined)) return this.deny(Rules.dynamicCommand, "git config with a non-literal value")
        return
      }
      case "rebase":
        if (has(/^(-x|--exec)(=.*)?$/)) return this.deny(Rules.inlineInterpreter, "git rebase --exec runs shell commands")
        return
      case "submodule":
        if (args.includes("foreach")) return this.deny(Rules.inlineInterpreter, "git submodule foreach runs shell commands")
        return
      case "filter-branch":
      case "filter-repo":
        return this.deny(Rules.inlineInterpreter, `git ${sub} runs shell snippets`)
      case "difftool":
      case "mergetool":
        if (has(/^(-x|--extcmd|-t|--tool)(=.*)?$/)) return this.deny(Rules.inlineInterpreter, `git ${sub} --extcmd runs a program`)
        return
      case "grep":
        if (has(/^(-O|--open-files-in-pager)/)) return this.deny(Rules.inlineInterpreter, "git grep -O runs a pager program")
        break
      case "bisect": {
        if (args[0] === "run") {
          const cmd = rest.slice(i + 2)
          if (cmd.length > 0) this.argv(cmd, info2, { substitution: false, procSub: false, privileged: false, text: "" })
        }
        return
      }
      case "fetch":
      case "pull":
      case "clone":
      case "push":
      case "ls-remote":
      case "archive":
        if (has(/^--(upload-pack|receive-pack|exec)(=|$)/) || (sub === "clone" && has(/^-u$/)) || (sub === "clone" && has(/^(-c|--config)$/))) {
          return this.deny(Rules.inlineInterpreter, `git ${sub} with a program option runs it`)
        }
        if (has(/^ext::/)) return this.deny(Rules.inlineInterpreter, "ext:: remotes run commands")
        return
      case "diff":
      case "log":
      case "show":
        if (has(/^--output(=|$)/)) {
          const o = args.findIndex((a) => a !== undefined && /^--output(=|$)/.test(a))
          const v = args[o]?.includes("=") === true ? args[o]?.slice(9) : args[o + 1]
          if (v !== undefined) this.pathArg(W.fromString(v), "write", cwd, `git ${sub} --output`)
        }
        break
      case "apply":
      case "add":
      case "commit":
      case "status":
      case "checkout":
      case "switch":
      case "restore":
      case "branch":
      case "tag":
      case "stash":
      case "merge":
      case "reset":
      case "rm":
      case "mv":
        break
    }
    // paths named after `git <sub>` (git add .env, git show HEAD:.env)
    for (let j = i + 1; j < rest.length; j++) {
      const a = lits[j]
      if (a !== undefined && a.startsWith("-")) continue
      const f = rest[j] ?? []
      const colon = a?.indexOf(":") ?? -1
      this.pathArg(colon > 0 && a !== undefined ? W.fromString(a.slice(colon + 1)) : f, "list-read", cwd, `git ${sub ?? ""}`)
      if (this.denial !== undefined) return
    }
  }

  dd(rest: ReadonlyArray<W.Field>, info: CommandInfo): void {
    for (const f of rest) {
      const t = W.text(f)
      if (t.startsWith("of=")) {
        const target = t.slice(3)
        if (deviceTarget.test(target)) return this.deny(Rules.destruction, `dd of=${target} overwrites a disk`)
        this.pathArg(f.slice(3), "write", info.cwd, "dd of=")
      } else if (t.startsWith("if=")) this.pathArg(f.slice(3), "read", info.cwd, "dd if=")
    }
  }

  destruction(base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void {
    const operandsStart = 0
    let recursive = base === "mv"
    const operands: Array<W.Field> = []
    let endOfOptions = false
    for (let i = operandsStart; i < rest.length; i++) {
      const a = lits[i]
      if (!endOfOptions && a !== undefined && a.startsWith("-") && a !== "-") {
        if (a === "--") endOfOptions = true
        else if (a === "--no-preserve-root") return this.deny(Rules.destruction, `${base} --no-preserve-root`)
        else if (a === "--recursive" || (/^-[a-zA-Z]+$/.test(a) && /[rR]/.test(a))) recursive = true
        else if ((base === "chown" || base === "chgrp" || base === "chmod") && a.startsWith("--reference")) continue
        continue
      }
      operands.push(rest[i] ?? [])
    }
    if (base === "chmod" || base === "chown" || base === "chgrp") operands.shift()
    if (base === "mv") operands.pop()
    if (!recursive && base !== "rmdir") {
      // a plain rm of `/` or `~` is harmless (it refuses folders), but unknown targets still go through the jail
      return
    }
    for (const f of operands) {
      this.broad(f, info, `${base}${recursive ? " -r" : ""}`, true)
      if (this.denial !== undefined) return
    }
  }

  /** Broad destruction: `/`, `~`, `..`, the workspace root or all of it, or a target that cannot be known. */
  broad(f: W.Field, info: CommandInfo, what: string, includesSelf: boolean): void {
    const raw = W.text(f)
    const t = shownPath(raw)
    if (W.hasUnknown(f)) return this.deny(Rules.destruction, `${what} ${t}: the target is not known before it runs`)
    const j = judgePath(f, info.cwd, this.root)
    const home = info.scope.home
    const target = j.literal ?? j.base
    if (target === undefined) return this.deny(Rules.destruction, `${what} ${t}: the target is not known before it runs`)
    const everything = j.literal === undefined && !j.sub && /^\/?(.*\/)?(\*|\.\*|\{\*,\.\*\}|\.\[!.\]\*|\?\*)$/.test(raw)
    const root = this.root
    const dotdot = /^(\.\.\/?)+$/.test(raw)
    const isAncestorOrSelf = (dir: string | undefined) => dir !== undefined && P.isInside(target, dir)
    const topLevel = P.segments(target).length <= 1
    if (j.sub) {
      // a path strictly below the start: only the start's breadth matters
      if (target === "/" || isAncestorOrSelf(home) && target !== root && !P.isInside(root, target) || (isAncestorOrSelf(root) && target !== root)) {
        return this.deny(Rules.destruction, `${what} below ${target} reaches system or home folders`)
      }
      return
    }
    if (dotdot) return this.deny(Rules.destruction, `${what} ${raw} removes a parent folder`)
    if (j.literal !== undefined || j.sub) {
      if (target === "/" || topLevel) return this.deny(Rules.destruction, `${what} ${t} targets the file system root`)
      if (isAncestorOrSelf(home) || isAncestorOrSelf(root)) return this.deny(Rules.destruction, `${what} ${t} targets ${target === root ? "the workspace root" : "your home folder or one of its parents"}`)
      return
    }
    // a glob: judge the folder it expands in
    if (everything && (target === root || isAncestorOrSelf(root) || isAncestorOrSelf(home) || target === "/" || topLevel)) {
      return this.deny(Rules.destruction, `${what} ${t} removes everything in ${target === root ? "the workspace" : target}`)
    }
    if (target === "/" || (topLevel && j.literal === undefined && P.segments(target).length === 0)) return this.deny(Rules.destruction, `${what} ${t} targets the file system root`)
  }

  /** Path arguments of ordinary commands: writes through the jail, reads of secrets denied. */
  paths(base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void {
    const writes = writeTargets(base, rest, lits)
    if (writes === "all-write") {
      for (let i = 0; i < rest.length; i++) {
        const a = lits[i]
        if (a !== undefined && a.startsWith("-") && a !== "-") continue
        this.pathArg(rest[i] ?? [], "write", info.cwd, base)
        if (this.denial !== undefined) return
      }
    } else {
      for (const w of writes.write) {
        this.pathArg(w, "write", info.cwd, base)
        if (this.denial !== undefined) return
      }
      if (writes.link !== undefined) this.link(writes.link.target, writes.link.name, info, writes.link.symbolic)
      if (this.denial !== undefined) return
    }
    const reads = !nonReaders.has(base)
    for (let i = 0; i < rest.length; i++) {
      const a = lits[i]
      let f = rest[i] ?? []
      const t = W.text(f)
      if (t.startsWith("-")) {
        const eq = t.indexOf("=")
        if (!t.startsWith("--") || eq < 0 || /^--(exclude|ignore|include)/.test(t)) continue
        f = f.slice(eq + 1)
      }
      if (a !== undefined && a.startsWith("@") && (base === "curl" || base === "http" || base === "xh")) f = W.fromString(a.slice(1))
      this.pathArg(f, reads ? "read" : "list", info.cwd, base)
      if (this.denial !== undefined) return
    }
  }

  link(target: W.Field, name: W.Field, info: CommandInfo, symbolic: boolean): void {
    const t = W.literal(target)
    if (t === undefined) {
      if (W.hasUnknown(target)) return this.deny(Rules.path, "ln to a target that is not known before it runs")
      return
    }
    const nameJ = judgePath(name, info.cwd, this.root)
    const linkDir = nameJ.literal !== undefined ? P.dirname(nameJ.literal) : info.cwd
    const abs = P.resolve(symbolic && !t.startsWith("/") ? linkDir : info.cwd, t)
    const why = protectedReason(abs, this.root)
    if (why !== undefined) return this.deny(Rules.secretRead, `ln to ${t}: ${why.reason}`)
    if (!this.ctx.jail.unrestricted && !P.isInside(this.root, abs)) return this.deny(Rules.path, `ln ${t}: the link would point outside the workspace`)
  }

  /** Judges one path: `write` through the jail; `read` and `list` for secrets (`list` only by exact name). */
  pathArg(f: W.Field, access: "read" | "write" | "list" | "list-read", cwd: string, what: string): void {
    if (this.denial !== undefined || f.length === 0) return
    const raw = W.text(f)
    const shown = shownPath(raw)
    if (/\/dev\/(tcp|udp)\//.test(raw)) return this.deny(Rules.exfiltration, `${shown} opens a network connection`)
    if (access === "list" && raw.startsWith("-")) return
    const j = judgePath(f, cwd, this.root)
    if (j.protectedBy?.kind === "environ") return this.deny(Rules.envDump, `${what} ${shown}: ${j.protectedBy.reason}`)
    if (access !== "write") {
      if (access === "list") return
      if (j.protectedBy !== undefined && j.protectedBy.kind === "secret") return this.deny(Rules.secretRead, `${what} ${shown}: ${j.protectedBy.reason}`)
      if (access === "read" && j.literal !== undefined && this.ctx.jail.home !== undefined && P.isInside(j.literal, this.ctx.jail.home) && !P.isInside(j.literal, this.root)) {
        return this.deny(Rules.secretRead, `${what} ${shown} reads a folder that holds your credentials`)
      }
      return
    }
    if (j.protectedBy !== undefined) return this.deny(Rules.path, `${what} writes ${shown}: ${j.protectedBy.reason}`)
    const target = j.literal ?? j.base
    if (target === undefined) return // unknown location: only broad destruction is denied for that
    if (deviceTarget.test(target)) return this.deny(Rules.destruction, `${what} writes ${target}, a disk device`)
    // Scratch files in /tmp are everyday work when named as such; `../x` that happens to land in /tmp (a workspace
    // that lives there) is a way out of the workspace, and stays judged by the jail.
    const climbsOut = raw.split("/").includes("..") && !P.isInside(this.root, target)
    if (harmlessDevices.test(target) || (isTempPath(target) && !climbsOut)) return
    const verdict = Jail.checkLexical(this.ctx.jail, cwd, target, "write")
    if (!verdict.ok && verdict.rule !== "jail.workspace-root") return this.deny(Rules.path, `${what} writes ${shown}: ${verdict.reason} (${verdict.rule})`)
  }
}

interface ArgvFlags {
  readonly substitution: boolean
  readonly procSub: boolean
  readonly privileged: boolean
  readonly text: string
}

interface Step {
  readonly args: ReadonlyArray<W.Field>
  readonly privileged: boolean
  readonly cwd?: string
}
type Unwrapped = Step | "judge" | "done"

/** Options of wrappers and network tools that take a value. */
const pkexecValued: ReadonlySet<string> = new Set(["--user"])
const execValued: ReadonlySet<string> = new Set(["-a"])
const timeValued: ReadonlySet<string> = new Set(["-f", "-o", "--format", "--output"])
const niceValued: ReadonlySet<string> = new Set(["-n", "--adjustment"])
const setsidValued: ReadonlySet<string> = new Set(["-t", "-w"])
const stdbufValued: ReadonlySet<string> = new Set(["-i", "-o", "-e", "--input", "--output", "--error"])
const timeoutValued: ReadonlySet<string> = new Set(["-s", "-k", "--signal", "--kill-after"])
const ioniceValued: ReadonlySet<string> = new Set(["-c", "-n", "--class", "--classdata"])
const chrootValued: ReadonlySet<string> = new Set(["--userspec", "--groups"])
const flockValued: ReadonlySet<string> = new Set(["-w", "-E", "--timeout", "--conflict-exit-code"])
const noValued: ReadonlySet<string> = new Set()
const sandboxValued: ReadonlySet<string> = new Set(["-o", "-e", "-p", "-s", "-u", "-f", "-t", "-m", "-N", "-C", "-P", "--unit", "--property"])
const sudoValued: ReadonlySet<string> = new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--prompt", "--chdir"])
const watchValued: ReadonlySet<string> = new Set(["-n", "--interval", "-d", "-q", "--equexit"])
const xargsValued: ReadonlySet<string> = new Set(["-n", "-L", "-P", "-s", "-d", "-E", "-a", "-I", "--max-args", "--max-lines", "--max-procs", "--delimiter", "--arg-file", "--replace", "--eof"])
const curlOutputs: ReadonlySet<string> = new Set(["-o", "--output"])
const wgetOutputs: ReadonlySet<string> = new Set(["-O", "--output-document", "-o", "--output-file", "-a", "--append-output"])

/** The first operand after options; `valued` options consume the next word unless attached (`-n5`, `--x=1`). */
const skipOptions = (lits: ReadonlyArray<string | undefined>, from: number, valued: ReadonlySet<string>): number => {
  let i = from
  for (; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) return i
    if (a === "--") return i + 1
    if (!a.startsWith("-") || a === "-") return i
    if (/^-\d+$/.test(a)) continue
    if (valued.has(a)) i++
  }
  return i
}

const replaceToken = (f: W.Field, token: string, by: W.Field): W.Field => {
  if (token === "") return f
  const out: Array<W.Ch> = []
  for (let i = 0; i < f.length; i++) {
    let match = true
    for (let j = 0; j < token.length; j++) if (f[i + j]?.c !== token[j] || f[i + j]?.k === "unk") match = false
    if (match) {
      out.push(...by)
      i += token.length - 1
    } else {
      const ch = f[i]
      if (ch !== undefined) out.push(ch)
    }
  }
  return out
}

interface WriteTargets {
  readonly write: ReadonlyArray<W.Field>
  readonly link?: { readonly target: W.Field; readonly name: W.Field; readonly symbolic: boolean }
}

/** Options of file-writing commands that take a value. */
const writerValued: Readonly<Record<string, ReadonlySet<string>>> = {
  cp: new Set(["-t", "--target-directory", "-S", "--suffix"]),
  mv: new Set(["-t", "--target-directory", "-S", "--suffix"]),
  install: new Set(["-t", "-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--target-directory"]),
  ln: new Set(["-t", "-S", "--target-directory", "--suffix"]),
  truncate: new Set(["-s", "--size", "-r", "--reference"]),
  touch: new Set(["-r", "-d", "-t", "--reference", "--date"]),
  mkdir: new Set(["-m", "--mode"]),
  chmod: new Set(["--reference"]),
  sort: new Set(["-o", "--output", "-k", "-t", "-S", "-T", "--key", "--field-separator"]),
  rsync: new Set(["-e", "--exclude", "--include", "--filter", "-f"]),
  unzip: new Set(["-d"]),
  patch: new Set(["-o", "--output", "-p", "-i", "--input"]),
  split: new Set(["-l", "-b", "-n", "-a"]),
  tee: new Set([])
}

/** Which arguments of a file-writing command it writes. */
const writeTargets = (base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>): WriteTargets | "all-write" => {
  const operands: Array<W.Field> = []
  const optionValues: Array<[string, W.Field]> = []
  let end = false
  const v = (Object.hasOwn(writerValued, base) ? writerValued[base] : undefined) ?? noValued
  for (let i = 0; i < rest.length; i++) {
    const a = lits[i]
    if (!end && a !== undefined && a.startsWith("-") && a !== "-") {
      if (a === "--") end = true
      else if (v.has(a)) {
        optionValues.push([a, rest[i + 1] ?? []])
        i++
      } else if (a.includes("=")) optionValues.push([a.slice(0, a.indexOf("=")), W.fromString(a.slice(a.indexOf("=") + 1))])
      continue
    }
    operands.push(rest[i] ?? [])
  }
  const opt = (...names: ReadonlyArray<string>) => optionValues.filter(([k]) => names.includes(k)).map(([, f]) => f)
  switch (base) {
    case "rm":
    case "rmdir":
    case "unlink":
    case "mkdir":
    case "touch":
    case "tee":
    case "truncate":
    case "shred":
    case "mkfifo":
    case "mknod":
      return { write: operands }
    case "chmod":
    case "chown":
    case "chgrp":
      return { write: opt("--reference").length > 0 ? operands : operands.slice(1) }
    case "cp":
    case "install": {
      const dir = opt("-t", "--target-directory")
      if (dir.length > 0) return { write: dir }
      if (base === "install" && lits.includes("-d")) return { write: operands }
      return { write: operands.slice(-1) }
    }
    case "mv": {
      const dir = opt("-t", "--target-directory")
      return { write: dir.length > 0 ? [...dir, ...operands] : operands }
    }
    case "ln": {
      const symbolic = lits.some((a) => a !== undefined && (/^-[a-zA-Z]*s/.test(a) || a === "--symbolic"))
      const dir = opt("-t", "--target-directory")
      if (dir.length > 0) return { write: dir, ...(operands[0] === undefined ? {} : { link: { target: operands[0], name: dir[0] ?? [], symbolic } }) }
      const target = operands[0]
      const name = operands.length >= 2 ? operands[operands.length - 1] : W.fromString(".")
      if (target === undefined || name === undefined) return { write: [] }
      return { write: [name], link: { target, name, symbolic } }
    }
    case "sort":
      return { write: opt("-o", "--output") }
    case "rsync":
    case "scp":
      return { write: operands.slice(-1) }
    case "unzip":
      return { write: opt("-d") }
    case "patch":
      return { write: [...opt("-o", "--output"), ...operands.slice(0, 1)] }
    case "split":
      return { write: operands.slice(1) }
    default:
      return { write: [] }
  }
}

interface SedVerdict {
  readonly exec: boolean
  readonly writes: ReadonlyArray<string>
  readonly reads: ReadonlyArray<string>
}

/** A small scanner for sed scripts: finds `e`, `s///e`, `w FILE`, `r FILE`. Unsure means exec. */
export const sedScript = (script: string): SedVerdict => {
  const writes: Array<string> = []
  const reads: Array<string> = []
  let i = 0
  const n = script.length
  const skipSpace = () => {
    while (i < n && /[\s;]/.test(script[i] ?? "")) i++
  }
  const readRegex = (delim: string): boolean => {
    while (i < n && script[i] !== delim) {
      if (script[i] === "\\") i++
      if (script[i] === "\n") return false
      i++
    }
    if (i >= n) return false
    i++
    return true
  }
  const restOfLine = (): string => {
    const start = i
    while (i < n && script[i] !== "\n" && script[i] !== ";") i++
    return script.slice(start, i).trim()
  }
  for (let guard = 0; guard < 10_000; guard++) {
    skipSpace()
    if (i >= n) break
    // addresses
    for (let k = 0; k < 2; k++) {
      const c = script[i] ?? ""
      if (/[0-9$]/.test(c)) {
        while (i < n && /[0-9$~+]/.test(script[i] ?? "")) i++
      } else if (c === "/" || c === "\\") {
        const delim = c === "\\" ? script[i + 1] ?? "/" : "/"
        i += c === "\\" ? 2 : 1
        if (!readRegex(delim)) return { exec: true, writes, reads }
        while (/[IM]/.test(script[i] ?? "")) i++
      }
      while (script[i] === " ") i++
      if (script[i] === ",") {
        i++
        continue
      }
      break
    }
    while (script[i] === " " || script[i] === "!") i++
    const cmd = script[i] ?? ""
    i++
    switch (cmd) {
      case "{":
      case "}":
      case "":
        continue
      case "s":
      case "y": {
        const delim = script[i] ?? ""
        i++
        if (delim === "" || delim === "\n" || delim === "\\") return { exec: true, writes, reads }
        if (!readRegex(delim) || !readRegex(delim)) return { exec: true, writes, reads }
        if (cmd === "y") continue
        const flagStart = i
        while (i < n && /[gpiImMe0-9]/.test(script[i] ?? "")) i++
        const flags = script.slice(flagStart, i)
        if (flags.includes("e")) return { exec: true, writes, reads }
        if (script[i] === "w" || script[i] === "W") {
          i++
          writes.push(restOfLine())
        }
        continue
      }
      case "e":
        return { exec: true, writes, reads }
      case "w":
      case "W":
        writes.push(restOfLine())
        continue
      case "r":
      case "R":
        reads.push(restOfLine())
        continue
      case "a":
      case "i":
      case "c":
        // text to the end of the line (GNU one-liner form)
        while (i < n && script[i] !== "\n") {
          if (script[i] === "\\") i++
          i++
        }
        continue
      case ":":
      case "b":
      case "t":
      case "T":
      case "l":
      case "L":
      case "q":
      case "Q":
        restOfLine()
        continue
      case "p":
      case "P":
      case "d":
      case "D":
      case "n":
      case "N":
      case "g":
      case "G":
      case "h":
      case "H":
      case "x":
      case "=":
      case "z":
      case "F":
        continue
      case "#":
        while (i < n && script[i] !== "\n") i++
        continue
      default:
        return { exec: true, writes, reads }
    }
  }
  return { exec: false, writes, reads }
}
