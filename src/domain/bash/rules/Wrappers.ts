/**
 * Rule family: wrappers (`env`, `sudo`, `timeout`, `xargs`, `su -c`…), stripped to a fixed point before the
 * command itself is judged.
 */
import * as W from "../BashWords.js"
import * as P from "../../jail/PosixPath.js"
import { Rules, deny, simple, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { judgeSimple } from "./Commands.js"
import { noValued, replaceToken, skipOptions } from "./Options.js"
import { pathArg } from "./Paths.js"
import { envVar } from "./Variables.js"

/** Reserved words tree-sitter sometimes accepts as command names where bash would stop with a syntax error. */
export const reservedWords = new Set(["do", "done", "then", "fi", "elif", "else", "esac", "in", "if", "for", "while", "until", "case", "select", "function", "{", "}", "!", "]]"])

/** A simple command, normalised: wrappers stripped to a fixed point, then judged by name. */
export const argv = (st: Walk, argv: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void => {
  let args = argv
  let privileged = flags.privileged
  const full = argv.map((f) => W.text(f))
  for (let round = 0; round < 64 && st.denial === undefined; round++) {
    const head = args[0]
    if (head === undefined) return
    const name = W.literal(head)
    if (name === undefined) {
      return deny(st, Rules.dynamicCommand, `the command name \`${W.text(head).replace(/\uE000/g, "$…")}\` is not a literal word`)
    }
    if (name === "") return deny(st, Rules.dynamicCommand, "the command name is empty")
    if (reservedWords.has(name)) return deny(st, Rules.parseError, `the reserved word \`${name}\` stands where a command should: the parser and bash would disagree`)
    const base = name.includes("/") ? P.basename(name) : name
    const rest = args.slice(1)
    const step = unwrap(st, base, rest, info, flags)
    if (step === "done") return
    if (step === "judge") {
      // behind sudo/doas/chroot only the full command line can match: approving `npm test` is not `sudo npm test`
      const normalised = args.map((f) => W.text(f))
      simple(st, privileged ? full : normalised, privileged ? undefined : full)
      return judgeSimple(st, base, name, rest, info, flags)
    }
    if (step.privileged) privileged = true
    args = step.args
    if (step.cwd !== undefined) info = { ...info, cwd: step.cwd }
  }
  if (st.denial === undefined) deny(st, Rules.tooLarge, "too many nested wrappers")
}

/** Strips one wrapper (`env`, `sudo`, `timeout`…) or re-enters the shell; "judge" when `base` is the command. */
export const unwrap = (st: Walk, base: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): Unwrapped => {
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
          if (str === undefined) return deny(st, Rules.dynamicCommand, "env -S with a non-literal string"), "done"
          const tail = rest.slice(inline === undefined ? i + 2 : i + 1).map((f) => W.text(f)).join(" ")
          st.script(`${str} ${tail}`, info, "env -S")
          return "done"
        } else if (a.startsWith("-")) continue
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          const eq = a.indexOf("=")
          envVar(st, a.slice(0, eq), a.slice(eq + 1), true)
        } else break
      }
      if (i >= rest.length) {
        if (!clean) deny(st, Rules.envDump, "env without a command prints every variable, secrets included")
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
        if (str === undefined) return deny(st, Rules.dynamicCommand, `${base} -c with a non-literal string`), "done"
        st.script(str, info, `${base} -c`)
        return "done"
      }
      return { args: [W.fromString("sh")], privileged: true }
    }
    case "script": {
      const c = lits.findIndex((a) => a === "-c" || a === "--command")
      if (c < 0) return "done"
      const str = lits[c + 1]
      if (str === undefined) return deny(st, Rules.dynamicCommand, "script -c with a non-literal string"), "done"
      st.script(str, info, "script -c")
      return "done"
    }
    case "flock": {
      const c = lits.findIndex((a) => a === "-c" || a === "--command")
      if (c >= 0) {
        const str = lits[c + 1]
        if (str === undefined) return deny(st, Rules.dynamicCommand, "flock -c with a non-literal string"), "done"
        st.script(str, info, "flock -c")
        return "done"
      }
      const i = skipOptions(lits, 0, flockValued)
      return next(i + 1)
    }
    case "watch": {
      const i = skipOptions(lits, 0, watchValued)
      if (lits.slice(0, i).some((a) => a === "-x" || a === "--exec")) return next(i)
      const joined = rest.slice(i).map((f) => W.literal(f))
      if (joined.some((s) => s === undefined)) return deny(st, Rules.dynamicCommand, "watch runs a non-literal string through sh -c"), "done"
      st.script(joined.join(" "), info, "watch")
      return "done"
    }
    case "xargs": {
      const i = skipOptions(lits, 0, xargsValued)
      const replace = lits.slice(0, i).findIndex((a) => a === "-I" || a === "-i" || a?.startsWith("--replace") === true || a?.startsWith("-I") === true)
      const argFile = lits.findIndex((a) => a === "-a" || a === "--arg-file")
      if (argFile >= 0 && argFile < i) {
        const f = rest[argFile + 1]
        if (f !== undefined) pathArg(st, f, "read", info.cwd, "xargs -a")
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

export interface Step {
  readonly args: ReadonlyArray<W.Field>
  readonly privileged: boolean
  readonly cwd?: string
}

export type Unwrapped = Step | "judge" | "done"

/** Options of wrappers and network tools that take a value. */
export const pkexecValued: ReadonlySet<string> = new Set(["--user"])
export const execValued: ReadonlySet<string> = new Set(["-a"])
export const timeValued: ReadonlySet<string> = new Set(["-f", "-o", "--format", "--output"])
export const niceValued: ReadonlySet<string> = new Set(["-n", "--adjustment"])
export const setsidValued: ReadonlySet<string> = new Set(["-t", "-w"])
export const stdbufValued: ReadonlySet<string> = new Set(["-i", "-o", "-e", "--input", "--output", "--error"])
export const timeoutValued: ReadonlySet<string> = new Set(["-s", "-k", "--signal", "--kill-after"])
export const ioniceValued: ReadonlySet<string> = new Set(["-c", "-n", "--class", "--classdata"])
export const chrootValued: ReadonlySet<string> = new Set(["--userspec", "--groups"])
export const flockValued: ReadonlySet<string> = new Set(["-w", "-E", "--timeout", "--conflict-exit-code"])
export const sandboxValued: ReadonlySet<string> = new Set(["-o", "-e", "-p", "-s", "-u", "-f", "-t", "-m", "-N", "-C", "-P", "--unit", "--property"])
export const sudoValued: ReadonlySet<string> = new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--prompt", "--chdir"])
export const watchValued: ReadonlySet<string> = new Set(["-n", "--interval", "-d", "-q", "--equexit"])
export const xargsValued: ReadonlySet<string> = new Set(["-n", "-L", "-P", "-s", "-d", "-E", "-a", "-I", "--max-args", "--max-lines", "--max-procs", "--delimiter", "--arg-file", "--replace", "--eof"])
