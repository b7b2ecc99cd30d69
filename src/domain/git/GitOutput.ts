/**
 * What git tools may show of protected files: their names, never their content. Pure: `revPaths` lists the paths
 * a revision like `HEAD:.env`, `:.env` or `:2:config/.env` names inside a tree or the index (the caller refuses the
 * revision when one is a secret), and `hideSecretDiffs` replaces each file section of a patch whose old or new path
 * (renames and copies included) is a secret with one marker line, the `index` line with its blob ids included.
 */

/**
 * Every path the revision could name after a colon: each suffix after each `:` (so `:N:path`, `rev:path` and a
 * colon inside a revision's braces all yield the real path among others). Conservative by design: a false match
 * only refuses a revision that names a secret-looking path.
 */
export const revPaths = (rev: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = rev.indexOf(":"); i >= 0; i = rev.indexOf(":", i + 1)) {
    const rest = rev.slice(i + 1)
    if (rest !== "") out.push(rest)
  }
  return out
}

/**
 * The revision's part that names commits (before the colon of `rev:path`, a colon inside `^{…}` or `@{…}` not
 * counted), or undefined when there is none: `:path`, `:N:path` (the index) and `:/text` (a search of what refs
 * reach).
 */
export const revBase = (rev: string): string | undefined => {
  let depth = 0
  for (let i = 0; i < rev.length; i++) {
    const c = rev[i]
    if (c === "{") depth++
    else if (c === "}") depth = Math.max(0, depth - 1)
    else if (c === ":" && depth === 0) return i === 0 ? undefined : rev.slice(0, i)
  }
  return rev === "" ? undefined : rev
}

/**
 * The path a revision looks up (`rev:path`, `:path`, `:N:path`), as written: relative to the top of the working
 * tree, or to the current folder when it starts with `./` or `../`; undefined when it looks up none (`HEAD~2`,
 * `:/text`). `HEAD:` looks up the top tree: "".
 */
export const revPath = (rev: string): string | undefined => {
  if (rev.startsWith(":/")) return undefined
  if (rev.startsWith(":")) return /^:[0-3]:/.test(rev) ? rev.slice(3) : rev.slice(1)
  const base = revBase(rev)
  return base === undefined || base.length === rev.length ? undefined : rev.slice(base.length + 1)
}

const escapes: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 }

/** A name as git prints it: C-quoted (`"a\\303\\251"`) when it has special characters, else as is. */
export const unquote = (name: string): string => {
  if (!(name.length >= 2 && name.startsWith('"') && name.endsWith('"'))) return name
  const bytes: Array<number> = []
  const body = name.slice(1, -1)
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? ""
    if (c !== "\\") {
      for (const b of new TextEncoder().encode(c)) bytes.push(b)
      continue
    }
    const oct = /^[0-7]{3}/.exec(body.slice(i + 1))
    if (oct !== null) {
      bytes.push(parseInt(oct[0], 8))
      i += 3
      continue
    }
    const e = escapes[body[i + 1] ?? ""]
    if (e !== undefined) bytes.push(e)
    i++
  }
  return new TextDecoder().decode(new Uint8Array(bytes))
}

const stripPrefix = (p: string): string => (p.startsWith("a/") || p.startsWith("b/") ? p.slice(2) : p)

/** The quoted names at the start of `s`, split at spaces outside quotes (for `diff --git "a/x" "b/y"`). */
const quotedPair = (rest: string): ReadonlyArray<string> => {
  const m = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest)
  return m === null ? [] : [unquote(m[1] ?? ""), unquote(m[2] ?? "")]
}

/** The paths a `diff --git` header can mean: with spaces in names, every split at ` b/` is a candidate. */
const headerPaths = (rest: string): ReadonlyArray<string> => {
  const out: Array<string> = [...quotedPair(rest).map(stripPrefix), stripPrefix(rest)]
  for (let i = rest.indexOf(" b/"); i >= 0; i = rest.indexOf(" b/", i + 1)) {
    out.push(stripPrefix(unquote(rest.slice(0, i))), stripPrefix(unquote(rest.slice(i + 1))))
  }
  return out
}

const starts = /^diff --(git|cc|combined) /

/** The paths a file section of a patch names, from its header lines (before the first hunk). */
const sectionPaths = (section: ReadonlyArray<string>): ReadonlyArray<string> => {
  const paths: Array<string> = []
  const first = section[0] ?? ""
  const rest = first.replace(starts, "")
  if (first.startsWith("diff --git ")) paths.push(...headerPaths(rest))
  else paths.push(unquote(rest))
  for (const l of section.slice(1)) {
    if (l.startsWith("@@") || l.startsWith("Binary files ") || l.startsWith("GIT binary patch")) break
    const m = /^(?:--- |\+\+\+ |rename from |rename to |copy from |copy to )(.*)$/.exec(l)
    if (m === null) continue
    const name = unquote((m[1] ?? "").replace(/\t$/, ""))
    if (name !== "/dev/null") paths.push(l.startsWith("---") || l.startsWith("+++") ? stripPrefix(name) : name)
  }
  return paths
}

/**
 * Every path the header lines of a patch name, wherever they sit in `text` (a message file keeps a patch below its
 * scissors line): quoted names unquoted, names with spaces split every way they can be.
 */
export const patchPaths = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "")
    if (starts.test(line)) out.push(...sectionPaths([line]))
    else if (/^(?:--- |\+\+\+ |rename from |rename to |copy from |copy to )/.test(line)) out.push(...sectionPaths(["", line]))
  }
  return out.filter((p) => p !== "")
}

/** The blob ids a section's `index <old>..<new>` line names (full ids with `--full-index`). */
const sectionBlobs = (section: ReadonlyArray<string>): ReadonlyArray<string> => {
  const line = section.find((l) => l.startsWith("index "))
  const m = line === undefined ? null : /^index ([0-9a-f,]+)\.\.([0-9a-f]+)/.exec(line)
  return m === null ? [] : [...(m[1] ?? "").split(","), m[2] ?? ""].filter((id) => !/^0+$/.test(id))
}

/**
 * The blob ids that sat at a secret path, from `git log --raw --no-abbrev --no-renames --format=` lines
 * (`:<mode> <mode> <old> <new> <status>\t<path>`) and `git ls-files --stage` records (`<mode> <id> <stage>\t<path>`).
 */
export const secretBlobIds = (logRaw: string, stage: string, isSecret: (path: string) => boolean): ReadonlySet<string> => {
  const ids = new Set<string>()
  for (const l of logRaw.split("\n")) {
    const m = /^:+(?:[0-7]{6} )+((?:[0-9a-f]{40,64} )+)[A-Z]+\d*\t(.+)$/.exec(l)
    if (m !== null && isSecret(unquote(m[2] ?? ""))) for (const id of (m[1] ?? "").trim().split(" ")) if (!/^0+$/.test(id)) ids.add(id)
  }
  for (const record of stage.split("\0")) {
    const m = /^\d+ ([0-9a-f]+) \d\t(.+)$/s.exec(record)
    if (m !== null && isSecret(m[2] ?? "")) ids.add(m[1] ?? "")
  }
  return ids
}

/**
 * The patch with every section of a secret file replaced by `[minicode: diff of secret file <path> hidden]`: a
 * section whose path is a secret, or whose blob id is one a secret path held (the same content under another name).
 */
export const hideSecretDiffs = (text: string, isSecret: (path: string) => boolean, secretBlobs: ReadonlySet<string> = new Set()): string => {
  const lines = text.split("\n")
  const out: Array<string> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i] ?? ""
    if (!starts.test(line)) {
      out.push(line)
      i++
      continue
    }
    let end = i + 1
    while (end < lines.length && !starts.test(lines[end] ?? "")) end++
    const section = lines.slice(i, end)
    const paths = sectionPaths(section)
    const secret = paths.find((p) => p !== "" && isSecret(p)) ?? (sectionBlobs(section).some((id) => secretBlobs.has(id)) ? (paths[0] ?? "?") : undefined)
    if (secret === undefined) out.push(...section)
    else {
      out.push(`[minicode: diff of secret file ${secret} hidden]`)
      // A commit message or the next commit's header after the last section stays (git show of several commits).
      const trailing = section.findIndex((l, k) => k > 0 && /^commit [0-9a-f]{7,}/.test(l))
      if (trailing > 0) out.push(...section.slice(trailing))
    }
    i = end
  }
  return out.join("\n")
}
