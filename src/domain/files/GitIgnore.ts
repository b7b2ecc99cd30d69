/**
 * One .gitignore file compiled to regular expressions, with git's rules (gitignore(5)): `#` comments and blank
 * lines skipped, trailing spaces dropped unless escaped, `!` negates, a trailing `/` matches folders only, a
 * pattern with a `/` before its end is anchored to the file's folder (else it matches at any depth), `*` and `?`
 * never cross a `/`, `[...]` classes, a leading `**\/`, a trailing `/**` and an inner `/**\/`. The last rule that
 * matches decides. A path is given relative to the file's folder, without a trailing slash.
 */
import * as LinearGlob from "./LinearGlob.js"

interface Rule {
  /**
   * Tested against the last segment only when `base` (a pattern with no `/` matches a name at any depth). A regex,
   * or for a pattern whose regex could backtrack without bound (two stars in a segment: a cloned repository's
   * `.gitignore` holding `*a*a*…b` froze every walk) LinearGlob's matcher, linear in the path.
   */
  readonly regex: { readonly test: (s: string) => boolean }
  readonly base: boolean
  readonly negated: boolean
  readonly dirOnly: boolean
  /** The pattern when it has no wildcard, class or escape: the regex matches exactly this string. */
  readonly literal: string | undefined
  /** For `*` and such a literal, unanchored: the regex matches exactly the names (no `/`) ending in this. */
  readonly suffix: string | undefined
}

export interface GitIgnore {
  readonly rules: ReadonlyArray<Rule>
}

const wild = /[*?[\\]/

/** git's verdict from one file: ignored, re-included by a negation, or no rule matched. */
export type Verdict = "ignored" | "unignored" | "none"

const special = /[\\^$.*+?()[\]{}|/]/

const classBody = (pattern: string, i: number): { readonly source: string; readonly end: number } | undefined => {
  let j = i + 1
  let body = ""
  if (pattern[j] === "!" || pattern[j] === "^") {
    body += "^"
    j++
  }
  if (pattern[j] === "]") {
    body += "\\]"
    j++
  }
  for (; j < pattern.length; j++) {
    const c = pattern[j] ?? ""
    if (c === "]") return { source: `(?!/)[${body}]`, end: j + 1 }
    if (c === "\\") {
      j++
      body += "\\" + (pattern[j] ?? "\\")
    } else body += c === "[" ? "\\[" : c
  }
  return undefined
}

const toSource = (glob: string): string => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? ""
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const startsSegment = i === 0 || glob[i - 1] === "/"
        let j = i
        while (glob[j] === "*") j++
        const endsSegment = j === glob.length || glob[j] === "/"
        if (startsSegment && endsSegment) {
          if (j === glob.length) out += i === 0 ? ".*" : ".*"
          else {
            out += "(?:.*/)?"
            j++
          }
          i = j - 1
          continue
        }
        i = j - 1
      }
      out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else if (c === "[") {
      const cls = classBody(glob, i)
      if (cls === undefined) out += "\\["
      else {
        out += cls.source
        i = cls.end - 1
      }
    } else if (c === "\\") {
      const e = glob[i + 1] ?? ""
      out += special.test(e) ? "\\" + e : e
      i++
    } else out += special.test(c) ? "\\" + c : c
  }
  return out
}

/**
 * A LinearGlob matcher for a pattern LinearGlob reads and whose regex is risky; undefined otherwise. git's trailing
 * `/**` matches what is inside, not the folder itself: for LinearGlob, a `*` segment then `**` (one segment or more).
 */
const linearOf = (line: string): { readonly test: (s: string) => boolean } | undefined => {
  const parsed = LinearGlob.parse(line.endsWith("/**") ? `${line.slice(0, -3)}/*/**` : line)
  if (parsed === undefined || !LinearGlob.risky(parsed)) return undefined
  return { test: (s) => LinearGlob.matches(parsed, s, false) }
}

const compileLine = (raw: string): Rule | undefined => {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
  // Trailing spaces go unless escaped.
  line = line.replace(/(?<!\\)( +)$/, "")
  if (line === "" || line.startsWith("#")) return undefined
  let negated = false
  if (line.startsWith("!")) {
    negated = true
    line = line.slice(1)
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1)
  let dirOnly = false
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true
    line = line.replace(/\/+$/, "")
  }
  if (line === "") return undefined
  const anchored = line.includes("/")
  if (line.startsWith("/")) line = line.slice(1)
  const body = toSource(line)
  const literal = wild.test(line) ? undefined : line
  const suffix = !anchored && line.startsWith("*") && !wild.test(line.slice(1)) ? line.slice(1) : undefined
  // Unanchored, the body matches no `/` (a `*`, `?` or class never does; a lone `**` matches all either way), so
  // `^(?:.*/)?body$` on the path is `^body$` on its last segment: the shorter test, with no backtracking over folders.
  return { regex: linearOf(line) ?? new RegExp(`^${body}$`), base: !anchored, negated, dirOnly, literal, suffix }
}

export const compile = (text: string): GitIgnore => ({
  rules: text.split("\n").flatMap((l) => {
    const rule = compileLine(l)
    return rule === undefined ? [] : [rule]
  })
})

export const test = (ig: GitIgnore, path: string, isDir: boolean): Verdict => {
  const slash = path.lastIndexOf("/")
  return testIn(ig, path.slice(0, slash + 1), path.slice(slash + 1), isDir)
}

/**
 * `test` of the path `folder + name`, given as the folder relative to the file's folder ("" or ending in `/`) and a
 * name with no `/`: for a walk, which has the two apart and so builds the whole path only for a rule anchored to
 * the file's folder.
 */
export const testIn = (ig: GitIgnore, folder: string, name: string, isDir: boolean): Verdict => {
  let path: string | undefined
  for (let k = ig.rules.length - 1; k >= 0; k--) {
    const rule = ig.rules[k]
    if (rule === undefined || (rule.dirOnly && !isDir)) continue
    const literal = rule.literal
    const hit = rule.base
      ? literal !== undefined
        ? name === literal
        : rule.suffix !== undefined
          ? name.endsWith(rule.suffix)
          : rule.regex.test(name)
      : literal !== undefined
        ? // `folder + name === literal`, without making the string.
          literal.length === folder.length + name.length && literal.startsWith(folder) && literal.endsWith(name)
        : rule.regex.test((path ??= folder + name))
    if (hit) return rule.negated ? "unignored" : "ignored"
  }
  return "none"
}
