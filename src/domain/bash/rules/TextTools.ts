/**
 * Rule family: text tools that can run programs or write files (`awk`, `sed`).
 */
import * as W from "../BashWords.js"
import { Rules, deny, type CommandInfo, type Walk } from "../Walk.js"
import { pathArg } from "./Paths.js"

export const awk = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void => {
  let program: string | undefined
  let hasProgramFile = false
  for (let i = 0; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) {
      if (program === undefined && !hasProgramFile) return deny(st, Rules.dynamicCommand, "awk program is not literal")
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
    pathArg(st, rest[i] ?? [], "read", info.cwd, "awk")
  }
  if (program === undefined) return
  const code = program.replace(/\|\|/g, " ")
  if (/\bsystem\s*\(|\|\s*&?\s*getline|\|&|\|\s*["a-zA-Z_(]|[")]\s*\|/.test(code)) return deny(st, Rules.inlineInterpreter, "awk program runs shell commands (system() or a pipe)")
  if (/\bENVIRON\b/.test(code) && /\bin\s+ENVIRON\b/.test(code)) return deny(st, Rules.envDump, "awk program dumps ENVIRON")
  for (const m of code.matchAll(/>>?\s*"([^"]*)"/g)) pathArg(st, W.fromString(m[1] ?? ""), "write", info.cwd, "awk >")
  for (const m of code.matchAll(/getline\s*<\s*"([^"]*)"/g)) pathArg(st, W.fromString(m[1] ?? ""), "read", info.cwd, "awk getline")
}

export const sed = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void => {
  const scripts: Array<string> = []
  const files: Array<W.Field> = []
  let inPlace = false
  let scriptFromOption = false
  for (let i = 0; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) {
      if (!scriptFromOption && scripts.length === 0) return deny(st, Rules.dynamicCommand, "sed script is not literal")
      files.push(rest[i] ?? [])
      continue
    }
    if (a === "-e" || a === "--expression") {
      const s = lits[i + 1]
      if (s === undefined) return deny(st, Rules.dynamicCommand, "sed script is not literal")
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
    if (verdict.exec) return deny(st, Rules.inlineInterpreter, "sed script runs a shell command (the e command or s///e)")
    for (const w of verdict.writes) pathArg(st, W.fromString(w), "write", info.cwd, "sed w")
    for (const r of verdict.reads) pathArg(st, W.fromString(r), "read", info.cwd, "sed r")
  }
  for (const f of files) pathArg(st, f, inPlace ? "write" : "read", info.cwd, inPlace ? "sed -i" : "sed")
}

export interface SedVerdict {
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
