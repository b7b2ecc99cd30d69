/**
 * Rule family: file system destruction and traversal: `rm -r`, `chmod -R`, `find -delete`/`-exec`, `tar`, `dd`,
 * disk tools.
 */
import * as W from "../BashWords.js"
import * as P from "../../jail/PosixPath.js"
import { deviceTarget, judgePath, shownPath } from "../PathPatterns.js"
import { Rules, deny, noStdin, simple, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { interpreterName, shells } from "./Interpreters.js"
import { nonReaders, pathArg } from "./Paths.js"
import { replaceToken } from "./Options.js"

export const find = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void => {
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
        const j = judgePath(globbed.length > 0 && globbed[0]?.c !== "/" ? [...W.fromString("/x/"), ...globbed] : globbed, info.cwd, st.root)
        if (j.protectedBy !== undefined && j.protectedBy.kind === "secret") namesSecret = true
      }
    }
    if (a === "-delete") {
      for (const s of starts) {
        if (filtered) broad(st, [...s, ...W.fromString("/"), W.subCh], info, "find -delete", false)
        else broad(st, s, info, "find -delete", true)
        pathArg(st, s, "write", info.cwd, "find -delete")
      }
    }
    if (/^-(fprint|fprint0|fprintf|fls)$/.test(a)) pathArg(st, rest[i + 1] ?? [], "write", info.cwd, `find ${a}`)
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
        return deny(st, Rules.inlineInterpreter, `find ${a} ${headBase} runs a shell or interpreter on every file`)
      }
      if (namesSecret && headBase !== undefined && !nonReaders.has(headBase)) return deny(st, Rules.secretRead, `find ${a} ${headBase} on files named like secrets`)
      for (const s of starts) {
        // `{}` is a path strictly below the start when a test filters, else possibly the start itself
        const found: W.Field = filtered ? [...s, ...W.fromString("/"), W.subCh] : s
        const argv = inner.map((f) => replaceToken(f, "{}", found))
        st.argv(argv, { ...info, stdin: noStdin }, { ...flags, procSub: false, substitution: false })
        if (st.denial !== undefined) return
      }
    }
  }
  simple(st, ["find", ...rest.map((f) => W.text(f))])
  for (const s of starts) {
    if (st.denial !== undefined) return
    pathArg(st, s, "list", info.cwd, "find")
  }
}

export const tar = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void => {
  const bad = lits.find(
    (a) =>
      a !== undefined &&
      (/^--(checkpoint-action|to-command|use-compress-program|rsh-command|info-script|new-volume-script|index-file)/.test(a) ||
        a === "-I" || a === "-F")
  )
  if (bad !== undefined) return deny(st, Rules.inlineInterpreter, `tar ${bad} runs a program`)
  const mode = lits.find((a) => a !== undefined && /^-?[a-zA-Z]+$/.test(a)) ?? ""
  const creating = /c|r|u/.test(mode.replace(/^-/, "")) && !mode.startsWith("--")
  const extracting = /x/.test(mode.replace(/^-/, ""))
  for (let i = 0; i < lits.length; i++) {
    const a = lits[i]
    if (a === "-f" || a === "--file" || (a !== undefined && /^-?[a-zA-Z]*f$/.test(a) && i === lits.indexOf(mode))) {
      const f = rest[i + 1]
      if (f !== undefined && W.literal(f) !== "-") pathArg(st, f, creating ? "write" : "read", info.cwd, "tar -f")
      i++
    } else if (a === "-C" || a === "--directory") {
      const d = rest[i + 1]
      if (d !== undefined && extracting) pathArg(st, d, "write", info.cwd, "tar -C")
      i++
    } else if (a !== undefined && a.startsWith("--file=")) pathArg(st, W.fromString(a.slice(7)), creating ? "write" : "read", info.cwd, "tar --file")
  }
}

export const dd = (st: Walk, rest: ReadonlyArray<W.Field>, info: CommandInfo): void => {
  for (const f of rest) {
    const t = W.text(f)
    if (t.startsWith("of=")) {
      const target = t.slice(3)
      if (deviceTarget.test(target)) return deny(st, Rules.destruction, `dd of=${target} overwrites a disk`)
      pathArg(st, f.slice(3), "write", info.cwd, "dd of=")
    } else if (t.startsWith("if=")) pathArg(st, f.slice(3), "read", info.cwd, "dd if=")
  }
}

export const destruction = (st: Walk, base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo): void => {
  const operandsStart = 0
  let recursive = base === "mv"
  const operands: Array<W.Field> = []
  let endOfOptions = false
  for (let i = operandsStart; i < rest.length; i++) {
    const a = lits[i]
    if (!endOfOptions && a !== undefined && a.startsWith("-") && a !== "-") {
      if (a === "--") endOfOptions = true
      else if (a === "--no-preserve-root") return deny(st, Rules.destruction, `${base} --no-preserve-root`)
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
    broad(st, f, info, `${base}${recursive ? " -r" : ""}`, true)
    if (st.denial !== undefined) return
  }
}

/** Broad destruction: `/`, `~`, `..`, the workspace root or all of it, or a target that cannot be known. */
export const broad = (st: Walk, f: W.Field, info: CommandInfo, what: string, includesSelf: boolean): void => {
  const raw = W.text(f)
  const t = shownPath(raw)
  if (W.hasUnknown(f)) return deny(st, Rules.destruction, `${what} ${t}: the target is not known before it runs`)
  const j = judgePath(f, info.cwd, st.root)
  const home = info.scope.home
  const target = j.literal ?? j.base
  if (target === undefined) return deny(st, Rules.destruction, `${what} ${t}: the target is not known before it runs`)
  const everything = j.literal === undefined && !j.sub && /^\/?(.*\/)?(\*|\.\*|\{\*,\.\*\}|\.\[!.\]\*|\?\*)$/.test(raw)
  const root = st.root
  const dotdot = /^(\.\.\/?)+$/.test(raw)
  const isAncestorOrSelf = (dir: string | undefined) => dir !== undefined && P.isInside(target, dir)
  const topLevel = P.segments(target).length <= 1
  if (j.sub) {
    // a path strictly below the start: only the start's breadth matters
    if (target === "/" || isAncestorOrSelf(home) && target !== root && !P.isInside(root, target) || (isAncestorOrSelf(root) && target !== root)) {
      return deny(st, Rules.destruction, `${what} below ${target} reaches system or home folders`)
    }
    return
  }
  if (dotdot) return deny(st, Rules.destruction, `${what} ${raw} removes a parent folder`)
  if (j.literal !== undefined || j.sub) {
    if (target === "/" || topLevel) return deny(st, Rules.destruction, `${what} ${t} targets the file system root`)
    if (isAncestorOrSelf(home) || isAncestorOrSelf(root)) return deny(st, Rules.destruction, `${what} ${t} targets ${target === root ? "the workspace root" : "your home folder or one of its parents"}`)
    return
  }
  // a glob: judge the folder it expands in
  if (everything && (target === root || isAncestorOrSelf(root) || isAncestorOrSelf(home) || target === "/" || topLevel)) {
    return deny(st, Rules.destruction, `${what} ${t} removes everything in ${target === root ? "the workspace" : target}`)
  }
  if (target === "/" || (topLevel && j.literal === undefined && P.segments(target).length === 0)) return deny(st, Rules.destruction, `${what} ${t} targets the file system root`)
}
