/**
 * Rule family: path arguments of ordinary commands: writes go through the jail, reads of secrets are denied,
 * links may not point at secrets or outside the workspace.
 */
import * as W from "../BashWords.js"
import * as P from "../../jail/PosixPath.js"
import * as Jail from "../../jail/Jail.js"
import { deviceTarget, harmlessDevices, judgePath, protectedReason, shownPath } from "../PathPatterns.js"
import { Rules, deny, type CommandInfo, type Walk } from "../Walk.js"
import { noValued } from "./Options.js"

/** Commands that only look at names or print their arguments, never read the files they name. */
export const nonReaders = new Set([
  "echo", "printf", "ls", "test", "[", "[[", "stat", "cd", "pushd", "popd", "dirname", "basename", "realpath",
  "readlink", "mkdir", "which", "type", "true", "false", ":", "du", "df", "touch", "rm", "rmdir", "unlink", "tree",
  "file", "command", "hash", "export", "unset", "local", "declare", "typeset", "readonly", "set", "shopt"
])

// ---------------------------------------------------------------------------------------------------------------
// Globs: could a pattern match a protected name?

export const isTempPath = (abs: string): boolean => P.isInside("/tmp", abs) || P.isInside("/var/tmp", abs)

// ---------------------------------------------------------------------------------------------------------------
// The walk

/** Path arguments of ordinary commands: writes through the jail, reads of secrets denied. */
export const paths = (st: Walk, base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void => {
  const writes = writeTargets(base, rest, lits)
  if (writes === "all-write") {
    for (let i = 0; i < rest.length; i++) {
      const a = lits[i]
      if (a !== undefined && a.startsWith("-") && a !== "-") continue
      pathArg(st, rest[i] ?? [], "write", info.cwd, base)
      if (st.denial !== undefined) return
    }
  } else {
    for (const w of writes.write) {
      pathArg(st, w, "write", info.cwd, base)
      if (st.denial !== undefined) return
    }
    if (writes.link !== undefined) link(st, writes.link.target, writes.link.name, info, writes.link.symbolic)
    if (st.denial !== undefined) return
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
    pathArg(st, f, reads ? "read" : "list", info.cwd, base)
    if (st.denial !== undefined) return
  }
}

export const link = (st: Walk, target: W.Field, name: W.Field, info: CommandInfo, symbolic: boolean): void => {
  const t = W.literal(target)
  if (t === undefined) {
    if (W.hasUnknown(target)) return deny(st, Rules.path, "ln to a target that is not known before it runs")
    return
  }
  const nameJ = judgePath(name, info.cwd, st.root)
  const linkDir = nameJ.literal !== undefined ? P.dirname(nameJ.literal) : info.cwd
  const abs = P.resolve(symbolic && !t.startsWith("/") ? linkDir : info.cwd, t)
  const why = protectedReason(abs, st.root)
  if (why !== undefined) return deny(st, Rules.secretRead, `ln to ${t}: ${why.reason}`)
  if (!st.ctx.jail.unrestricted && !P.isInside(st.root, abs)) return deny(st, Rules.path, `ln ${t}: the link would point outside the workspace`)
}

/** Judges one path: `write` through the jail; `read` and `list` for secrets (`list` only by exact name). */
export const pathArg = (st: Walk, f: W.Field, access: "read" | "write" | "list" | "list-read", cwd: string, what: string): void => {
  if (st.denial !== undefined || f.length === 0) return
  const raw = W.text(f)
  const shown = shownPath(raw)
  if (/\/dev\/(tcp|udp)\//.test(raw)) return deny(st, Rules.exfiltration, `${shown} opens a network connection`)
  if (access === "list" && raw.startsWith("-")) return
  const j = judgePath(f, cwd, st.root)
  if (j.protectedBy?.kind === "environ") return deny(st, Rules.envDump, `${what} ${shown}: ${j.protectedBy.reason}`)
  if (access !== "write") {
    if (access === "list") return
    if (j.protectedBy !== undefined && j.protectedBy.kind === "secret") return deny(st, Rules.secretRead, `${what} ${shown}: ${j.protectedBy.reason}`)
    if (access === "read" && j.literal !== undefined && st.ctx.jail.home !== undefined && P.isInside(j.literal, st.ctx.jail.home) && !P.isInside(j.literal, st.root)) {
      return deny(st, Rules.secretRead, `${what} ${shown} reads a folder that holds your credentials`)
    }
    return
  }
  if (j.protectedBy !== undefined) return deny(st, Rules.path, `${what} writes ${shown}: ${j.protectedBy.reason}`)
  const target = j.literal ?? j.base
  if (target === undefined) return // unknown location: only broad destruction is denied for that
  if (deviceTarget.test(target)) return deny(st, Rules.destruction, `${what} writes ${target}, a disk device`)
  // Scratch files in /tmp are everyday work when named as such; `../x` that happens to land in /tmp (a workspace
  // that lives there) is a way out of the workspace, and stays judged by the jail.
  const climbsOut = raw.split("/").includes("..") && !P.isInside(st.root, target)
  if (harmlessDevices.test(target) || (isTempPath(target) && !climbsOut)) return
  const verdict = Jail.checkLexical(st.ctx.jail, cwd, target, "write")
  if (!verdict.ok && verdict.rule !== "jail.workspace-root") return deny(st, Rules.path, `${what} writes ${shown}: ${verdict.reason} (${verdict.rule})`)
}

export interface WriteTargets {
  readonly write: ReadonlyArray<W.Field>
  readonly link?: { readonly target: W.Field; readonly name: W.Field; readonly symbolic: boolean }
}

/** Options of file-writing commands that take a value. */
export const writerValued: Readonly<Record<string, ReadonlySet<string>>> = {
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
export const writeTargets = (base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>): WriteTargets | "all-write" => {
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
