/**
 * Rule family: shells and interpreters: `bash -c`, scripts fed on stdin, `python -c`, `node -e` and their kin.
 */
import * as W from "../BashWords.js"
import { Rules, deny, noStdin, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { pathArg } from "./Paths.js"

export const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash", "pdksh", "oksh"])

export const interpreters = new Map<string, RegExp>([
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
export const versionedInterpreter = /^(python|pypy|perl|ruby|php|lua|node)/

export const interpreterName = (name: string): string | undefined => {
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
export const interpreterValueOptions = new Set(["-m", "-W", "-X", "-r", "--require", "--import", "-I", "-M", "--loader", "--input-type", "-C"])

export const shell = (st: Walk, base: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void => {
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
      if (a !== "-o" && a !== "+o" && file !== undefined) pathArg(st, file, "read", info.cwd, base)
      i++
      continue
    }
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command") command = true
    if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(a)) stdinScript = true
    if (!a.startsWith("-") && !a.startsWith("+")) break
  }
  if (command) {
    const str = rest[i]
    if (str === undefined) return deny(st, Rules.parseError, `${base} -c without a command`)
    const s = W.literal(str)
    if (s === undefined) return deny(st, Rules.dynamicCommand, `${base} -c runs a string that is not literal`)
    return st.script(s, { ...info, stdin: noStdin }, `${base} -c`)
  }
  const scriptArg = stdinScript ? undefined : rest[i]
  if (scriptArg !== undefined) {
    if (flags.procSub && W.text(scriptArg) === "\uE000") return deny(st, Rules.inlineInterpreter, `${base} <(…) runs a script the guard cannot see`)
    const t = W.literal(scriptArg)
    if (t === "/dev/stdin" || t === "/dev/fd/0" || t === "/proc/self/fd/0") return fromStdin(st, base, info)
    if (t === undefined && W.text(scriptArg) === "\uE000") return deny(st, Rules.inlineInterpreter, `${base} runs a script whose name is not known`)
    pathArg(st, scriptArg, "read", info.cwd, base)
    return
  }
  return fromStdin(st, base, info)
}

/** A shell reading its script from stdin. */
export const fromStdin = (st: Walk, base: string, info: CommandInfo): void => {
  const stdin = info.stdin
  switch (stdin.kind) {
    case "heredoc":
      return st.script(stdin.body, { ...info, stdin: noStdin }, `the heredoc fed to ${base}`)
    case "herestring":
      if (stdin.body === undefined) return deny(st, Rules.dynamicCommand, `${base} reads a script from a string that is not literal`)
      return st.script(stdin.body, { ...info, stdin: noStdin }, `the here-string fed to ${base}`)
    case "pipe":
      return deny(st, Rules.inlineInterpreter, `piping into ${base} runs code the guard cannot see`)
    case "file":
    case "none":
      return
  }
}

export const interpreter = (st: Walk, base: string, family: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void => {
  const inline = interpreters.get(family)
  if (family === "irb" || family === "jshell") {
    if (info.stdin.kind !== "none" && info.stdin.kind !== "file") return deny(st, Rules.inlineInterpreter, `${base} fed on stdin runs code the guard cannot see`)
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
      return deny(st, Rules.inlineInterpreter, `${base} ${a} runs program text given on the command line`)
    }
    if (family === "deno" && (a === "run" || a === "task" || a === "test" || a === "fmt" || a === "lint" || a === "check" || a === "compile" || a === "bench" || a === "serve")) {
      const target = lits.slice(i + 1).find((x) => x === undefined || !x.startsWith("-"))
      if (target === "-" || (target !== undefined && /^https?:/.test(target))) return deny(st, Rules.inlineInterpreter, `deno ${a} ${target} runs code the guard cannot see`)
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
    return deny(st, Rules.inlineInterpreter, `${base} <(…) runs a script the guard cannot see`)
  }
  if (scriptText !== undefined && /^https?:\/\//.test(scriptText)) return deny(st, Rules.inlineInterpreter, `${base} runs a remote script`)
  if (script === undefined || scriptText === "-" || scriptText === "/dev/stdin") {
    if (info.stdin.kind === "heredoc" || info.stdin.kind === "herestring" || info.stdin.kind === "pipe") {
      return deny(st, Rules.inlineInterpreter, `${base} fed by a ${info.stdin.kind} runs code the guard cannot see`)
    }
    if (scriptText === "-" || scriptText === "/dev/stdin") return deny(st, Rules.inlineInterpreter, `${base} reading its program from stdin`)
  }
}
