/**
 * A small, pure glob matcher for allowlist entries and plan artefacts: `**` crosses folders, `*` and `?` do not,
 * `{a,b}` alternates. (The file tools use picomatch in their adapter; the domain may import only effect.)
 */

const escape = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? "\\" + c : c)

export const toRegExp = (glob: string, options: { readonly caseInsensitive?: boolean } = {}): RegExp => {
  let out = ""
  let depth = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? ""
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/"
        out += slash ? "(?:.*/)?" : ".*"
        i += slash ? 2 : 1
      } else out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else if (c === "{") {
      depth++
      out += "(?:"
    } else if (c === "}" && depth > 0) {
      depth--
      out += ")"
    } else if (c === "," && depth > 0) out += "|"
    else out += escape(c)
  }
  return new RegExp(`^${out}$`, options.caseInsensitive === true ? "i" : "")
}

export const matches = (glob: string, path: string): boolean => toRegExp(glob).test(path)
