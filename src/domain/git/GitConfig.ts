/**
 * Git's configuration files, read the way git reads them, and the keys that make git run a program. Pure: the
 * caller reads the files (every one git would read for the repository) and asks, per entry, whether it names a
 * program. Git tools refuse such a repository before git runs, whichever way the configuration was planted.
 *
 * Syntax (git-config(1)): `[section]`, `[section "subsection"]` (quoted, `\"` and `\\` escapes), the deprecated
 * `[section.subsection]`; `name = value` or a bare `name` (true); a header and a key may share a line; `#` and `;`
 * start comments outside quotes; a value may be quoted, has `\n \t \b \" \\` escapes and continues over a line
 * ending in `\`. What git would reject is reported as an error, never skipped.
 */

export interface Entry {
  /** Lower-cased section name. */
  readonly section: string
  /** The subsection as written (case-sensitive), or undefined. */
  readonly subsection: string | undefined
  /** Lower-cased variable name. */
  readonly name: string
  /** The value, or undefined for a bare `name` (boolean true). */
  readonly value: string | undefined
  /** 1-based line where the entry starts. */
  readonly line: number
}

export type Parsed =
  | { readonly ok: true; readonly entries: ReadonlyArray<Entry> }
  | { readonly ok: false; readonly line: number; readonly reason: string }

/** The dotted key as git prints it: `section.subsection.name` (subsection kept as written). */
export const keyOf = (e: Entry): string => (e.subsection === undefined ? `${e.section}.${e.name}` : `${e.section}.${e.subsection}.${e.name}`)

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r"

/** Parses one configuration file's text. */
export const parse = (text: string): Parsed => {
  const entries: Array<Entry> = []
  let section: string | undefined
  let subsection: string | undefined
  let i = 0
  let line = 1
  const fail = (reason: string): Parsed => ({ ok: false, line, reason })
  const skipSpace = () => {
    while (isSpace(text[i])) i++
  }
  const skipComment = () => {
    while (i < text.length && text[i] !== "\n") i++
  }
  while (i < text.length) {
    skipSpace()
    const c = text[i]
    if (c === undefined) break
    if (c === "\n") {
      i++
      line++
      continue
    }
    if (c === "#" || c === ";") {
      skipComment()
      continue
    }
    if (c === "[") {
      i++
      let name = ""
      while (i < text.length && /[A-Za-z0-9.-]/.test(text[i] ?? "")) name += text[i++]
      if (name === "") return fail("a section header without a name")
      subsection = undefined
      if (isSpace(text[i])) {
        skipSpace()
        if (text[i] !== '"') return fail("a subsection must be quoted")
        i++
        let sub = ""
        for (;;) {
          const d = text[i]
          if (d === undefined || d === "\n") return fail("an unterminated subsection")
          if (d === '"') break
          if (d === "\\") {
            const e = text[i + 1]
            if (e === undefined || e === "\n") return fail("an unterminated subsection")
            sub += e
            i += 2
            continue
          }
          sub += d
          i++
        }
        i++
        subsection = sub
        if (text[i] !== "]") return fail("a section header must end with ]")
      } else if (text[i] !== "]") {
        return fail("a section header must end with ]")
      }
      i++
      const dot = name.indexOf(".")
      if (subsection === undefined && dot >= 0) {
        // The deprecated `[section.subsection]`: the subsection is lower-cased.
        subsection = name.slice(dot + 1).toLowerCase()
        name = name.slice(0, dot)
      }
      section = name.toLowerCase()
      continue
    }
    if (!/[A-Za-z]/.test(c)) return fail(`unexpected ${JSON.stringify(c)}`)
    if (section === undefined) return fail("a variable outside any section")
    const start = line
    let name = ""
    while (i < text.length && /[A-Za-z0-9-]/.test(text[i] ?? "")) name += text[i++]
    skipSpace()
    const next = text[i]
    if (next === undefined || next === "\n" || next === "#" || next === ";") {
      entries.push({ section, subsection, name: name.toLowerCase(), value: undefined, line: start })
      continue
    }
    if (next !== "=") return fail(`a variable name followed by ${JSON.stringify(next)}`)
    i++
    skipSpace()
    let value = ""
    let pending = ""
    let quoted = false
    for (;;) {
      const d = text[i]
      if (d === undefined || d === "\n") {
        if (quoted) return fail("an unterminated quoted value")
        break
      }
      if (!quoted && (d === "#" || d === ";")) {
        skipComment()
        break
      }
      if (d === "\\") {
        const e = text[i + 1]
        if (e === "\n") {
          i += 2
          line++
          continue
        }
        const escaped = e === "n" ? "\n" : e === "t" ? "\t" : e === "b" ? "\b" : e === '"' || e === "\\" ? e : undefined
        if (escaped === undefined) return fail("an invalid escape in a value")
        value += pending + escaped
        pending = ""
        i += 2
        continue
      }
      if (d === '"') {
        value += pending
        pending = ""
        quoted = !quoted
        i++
        continue
      }
      // Whitespace outside quotes is kept only between other characters.
      if (!quoted && isSpace(d)) pending += d
      else {
        value += pending + d
        pending = ""
      }
      i++
    }
    entries.push({ section, subsection, name: name.toLowerCase(), value, line: start })
  }
  return { ok: true, entries }
}

const falsy = new Set(["false", "no", "off", "0", ""])

/**
 * Why this entry makes git run a program (or read objects from elsewhere), or undefined. The families: drivers
 * (filter, diff, merge), textconv, external diff, fsmonitor, hooks (`core.hooksPath`, `hook.*`), editors and
 * pagers, ssh and proxies, askpass and credential helpers, gpg programs, pack and receive programs, `!` aliases,
 * transports that run commands (`protocol.*.allow`), browsers and the mail and web helpers.
 */
export const programReason = (e: Entry): string | undefined => {
  const { section: s, subsection: sub, name: n } = e
  const v = (e.value ?? "").trim()
  const has = sub !== undefined
  if (s === "filter" && has && (n === "clean" || n === "smudge" || n === "process")) return "filters run a program on every matching file"
  if (s === "diff" && has && (n === "textconv" || n === "command")) return "a diff driver runs a program on every matching file"
  if (s === "diff" && !has && n === "external") return v === "" ? undefined : "an external diff program"
  if (s === "merge" && has && n === "driver") return "a merge driver runs a program"
  if ((s === "mergetool" || s === "difftool") && has && n === "cmd") return "a merge or diff tool runs a program"
  if (s === "core") {
    if (n === "fsmonitor") return falsy.has(v.toLowerCase()) ? undefined : "core.fsmonitor runs a program (or a daemon) on every status"
    if (["hookspath", "sshcommand", "pager", "editor", "askpass", "gitproxy", "alternaterefscommand"].includes(n)) return `core.${n} names a program`
  }
  if (s === "hook" && has) return "a configured hook runs a program"
  if (s === "pager") return "a pager runs a program"
  if (s === "sequence" && n === "editor") return "an editor runs a program"
  if (s === "gpg" && (n === "program" || n === "defaultkeycommand")) return "gpg signing runs a program"
  if (s === "credential" && n === "helper") return "a credential helper runs a program"
  if (s === "uploadpack" || s === "uploadarchive" || s === "receive") return `${s}.* can run programs for transfers`
  if (s === "remote" && has && (n === "uploadpack" || n === "receivepack" || n === "vcs" || n === "proxy")) return `remote.*.${n} runs a program or a helper`
  if (s === "protocol" && n === "allow" && v.toLowerCase() === "always") return "protocol.*.allow=always enables transports that run commands (ext::)"
  if (s === "alias" && v.startsWith("!")) return "a shell alias runs a program"
  if (s === "submodule" && n === "update" && v.startsWith("!")) return "a submodule update command runs a program"
  if (s === "trailer" && (n === "command" || n === "cmd")) return "a trailer command runs a program"
  if (s === "interactive" && n === "difffilter") return "an interactive diff filter runs a program"
  if (s === "instaweb" || s === "sendemail" || s === "browser" || s === "man" || s === "web") return `${s}.* runs helper programs`
  if (s === "http" && (n === "proxy" || n === "curloptresolve")) return "http.proxy sends traffic through a program the repository chose"
  return undefined
}

/** The files an entry includes: `include.path` and every `includeIf.<condition>.path` (conditions not evaluated). */
export const includePath = (e: Entry): string | undefined =>
  (e.section === "include" || (e.section === "includeif" && e.subsection !== undefined)) && e.name === "path" && e.value !== undefined && e.value !== ""
    ? e.value
    : undefined
