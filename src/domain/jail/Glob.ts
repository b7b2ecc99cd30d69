/**
 * A small, pure glob matcher for allowlist entries and plan artefacts: `**` as a whole segment crosses folders;
 * `*`, `**` inside a segment and `?` do not; `{a,b}` alternates; `[a-z]` is a class and `[!a-z]` or `[^a-z]` its
 * negation, as in the shell (a class never matches `/`). (The file tools use picomatch in their adapter; the domain may import only effect.)
 */

const escape = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? "\\" + c : c)

/** The class starting at `glob[i]` (a `[`) as a regex and the index after it, or undefined when it is no class. */
const classAt = (glob: string, i: number): { readonly source: string; readonly end: number } | undefined => {
  let j = i + 1
  let body = ""
  if (glob[j] === "!" || glob[j] === "^") {
    body += "^"
    j++
  }
  if (glob[j] === "]") {
    body += "\\]"
    j++
  }
  for (; j < glob.length; j++) {
    const c = glob[j] ?? ""
    if (c === "]") {
      const source = `(?!/)[${body}]`
      try {
        new RegExp(source)
      } catch {
        // A range out of order (`[z-a]`): no class, as the shell matches it literally.
        return undefined
      }
      return { source, end: j + 1 }
    }
    if (c === "\\") {
      j++
      body += "\\" + (glob[j] ?? "\\")
    } else body += c === "[" ? "\\[" : c
  }
  return undefined
}

export const toRegExp = (glob: string, options: { readonly caseInsensitive?: boolean } = {}): RegExp => {
  let out = ""
  let depth = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? ""
    if (c === "*") {
      let run = 1
      while (glob[i + run] === "*") run++
      const after = glob[i + run]
      // `**` crosses folders only as a whole segment, as bash's globstar reads it; `**a` and `***` are `*`s.
      const globstar = run === 2 && (i === 0 || glob[i - 1] === "/") && (after === undefined || after === "/")
      if (globstar && after === "/") {
        out += "(?:.*/)?"
        i += run
      } else {
        out += globstar ? ".*" : "[^/]*"
        i += run - 1
      }
    } else if (c === "?") out += "[^/]"
    else if (c === "{") {
      depth++
      out += "(?:"
    } else if (c === "}" && depth > 0) {
      depth--
      out += ")"
    } else if (c === "," && depth > 0) out += "|"
    else if (c === "[") {
      const cls = classAt(glob, i)
      if (cls === undefined) out += "\\["
      else {
        out += cls.source
        i = cls.end - 1
      }
    } else out += escape(c)
  }
  return new RegExp(`^${out}$`, options.caseInsensitive === true ? "i" : "")
}

export const matches = (glob: string, path: string): boolean => toRegExp(glob).test(path)
