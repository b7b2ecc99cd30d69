/**
 * A small reader of TOML for mise's config files: each `key = value` with its full dotted key (the table it is in
 * joined with its own dotted key, quotes taken off) and the value's text. Values may span lines (arrays, inline
 * tables, multi-line strings). Anything it cannot follow is an error, never a guess.
 */
export interface Entry {
  readonly key: ReadonlyArray<string>
  readonly value: string
}

export type Read = { readonly ok: true; readonly entries: ReadonlyArray<Entry> } | { readonly ok: false; readonly reason: string }

/** A dotted key's parts, quotes taken off (`"a.b".c` is ["a.b", "c"]), or undefined when it is not one. */
const keyParts = (text: string): ReadonlyArray<string> | undefined => {
  const parts: Array<string> = []
  let rest = text.trim()
  for (;;) {
    const m = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*/.exec(rest)
    if (m === null) return undefined
    parts.push(m[1] ?? m[2] ?? m[3] ?? "")
    rest = rest.slice(m[0].length)
    if (rest === "") return parts
    if (!rest.startsWith(".")) return undefined
    rest = rest.slice(1).trimStart()
  }
}

export const read = (text: string): Read => {
  const entries: Array<Entry> = []
  let table: ReadonlyArray<string> = []
  let i = 0
  const lineEnd = (from: number) => {
    const n = text.indexOf("\n", from)
    return n === -1 ? text.length : n
  }
  const bad = (what: string): Read => ({ ok: false, reason: `${what} on line ${text.slice(0, i).split("\n").length}` })
  /** The end of the value starting at `from` (its last character + 1), or -1 when it does not end. */
  const valueEnd = (from: number): number => {
    let j = from
    let depth = 0
    while (j < text.length) {
      const c = text[j]
      if (text.startsWith('"""', j) || text.startsWith("'''", j)) {
        const q = text.slice(j, j + 3)
        let k = j + 3
        for (;;) {
          const e = text.indexOf(q, k)
          if (e === -1) return -1
          if (q === '"""' && text[e - 1] === "\\" && text[e - 2] !== "\\") k = e + 1
          else {
            j = e + 3
            while (text[j] === q[0]) j++
            break
          }
        }
      } else if (c === '"' || c === "'") {
        let k = j + 1
        while (k < text.length && text[k] !== c && text[k] !== "\n") k += c === '"' && text[k] === "\\" ? 2 : 1
        if (text[k] !== c) return -1
        j = k + 1
      } else if (c === "[" || c === "{") {
        depth++
        j++
      } else if (c === "]" || c === "}") {
        depth--
        if (depth < 0) return -1
        j++
      } else if (c === "#") {
        if (depth === 0) return j
        j = lineEnd(j)
      } else if (c === "\n" && depth === 0) return j
      else j++
    }
    return depth === 0 ? j : -1
  }
  while (i < text.length) {
    const c = text[i]
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      i++
      continue
    }
    if (c === "#") {
      i = lineEnd(i)
      continue
    }
    const end = lineEnd(i)
    const line = text.slice(i, end).replace(/\s*(#.*)?\r?$/, "")
    if (c === "[") {
      const m = /^\[\[?\s*(.+?)\s*\]\]?$/.exec(line)
      const parts = m?.[1] === undefined ? undefined : keyParts(m[1])
      if (m === null || parts === undefined || line.startsWith("[[") !== line.endsWith("]]")) return bad("a table header it cannot read")
      table = parts
      i = end
      continue
    }
    const eq = /^((?:"(?:[^"\\]|\\.)*"|'[^']*'|[^=#"'])+?)\s*=\s*/.exec(text.slice(i, end))
    const key = eq?.[1] === undefined ? undefined : keyParts(eq[1])
    if (eq === null || key === undefined) return bad("a line that is not `key = value`")
    const from = i + eq[0].length
    const to = valueEnd(from)
    if (to === -1 || to === from) return bad(`a value of ${key.join(".")} it cannot read`)
    entries.push({ key: [...table, ...key], value: text.slice(from, to).trim() })
    // After the value: only a comment to the end of its line.
    const after = text.slice(to, lineEnd(to)).trim()
    if (after !== "" && !after.startsWith("#")) return bad(`text after the value of ${key.join(".")}`)
    i = lineEnd(to)
  }
  return { ok: true, entries }
}
