/**
 * glob's path matcher: picomatch's (`dot`, `posix`, `matchBase` for a pattern without a `/`), answering as picomatch's own
 * matcher does, without the two result objects and the match array it makes per path (60,000 paths on the bench
 * tree). A path matches when it is the pattern itself, or when the pattern's regex matches it (its last segment,
 * with `matchBase`). Paths here are relative, with `/` separators, never empty, with no empty, `.` or `..` segment
 * and no trailing `/`; each comes as its folder ("" or ending in `/`) and its name.
 *
 * `**\/NAME`, where NAME is only letters, digits, `.`, `_`, `-` and `*` (`**\/*.ts`, `**\/index.*`), is answered
 * from the name alone, by picomatch's regex for NAME: on such paths `**\/` matches any run of folders, and NAME's
 * regex is the same one either way; so no path is made for a name that does not match. (PathGlob.test.ts checks
 * both forms against picomatch.)
 */
import picomatch from "picomatch"
import * as LinearGlob from "../domain/files/LinearGlob.js"

export type PathMatcher = (folder: string, name: string) => boolean

/**
 * The glob with `/` added to every negated class holding a POSIX class (`[![:alpha:]]` -> `[![:alpha:]/]`):
 * picomatch leaves `/` out of a negated class itself, but not of one holding a POSIX class, which then matched across
 * folders (`a[![:alpha:]]b` took `a/b`). Other globs come back as they are.
 */
export const negatedClassesSkipSlash = (glob: string): string => {
  if (!glob.includes("[:")) return glob
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? ""
    if (c === "\\") {
      out += c + (glob[i + 1] ?? "")
      i++
      continue
    }
    if (c !== "[" || (glob[i + 1] !== "!" && glob[i + 1] !== "^")) {
      out += c
      continue
    }
    // The class's end: a `]` first is literal, `[:name:]` is a POSIX class inside it.
    let j = i + 2
    if (glob[j] === "]") j++
    for (; j < glob.length && glob[j] !== "]"; j++) {
      if (glob[j] === "[" && glob[j + 1] === ":") {
        const end = glob.indexOf(":]", j + 2)
        if (end !== -1) j = end + 1
      } else if (glob[j] === "\\") j++
    }
    if (j >= glob.length) {
      out += c
      continue
    }
    out += `${glob.slice(i, j)}/]`
    i = j
  }
  return out
}

/** `folder + name === s`, without making the string. */
const joinedIs = (folder: string, name: string, s: string) =>
  s.length === folder.length + name.length && s.startsWith(folder) && s.endsWith(name)

const byName = /^\*\*\/[A-Za-z0-9._*-]+$/

export const matcher = (pattern: string, options: { readonly nocase?: boolean } = {}): PathMatcher => {
  const nocase = options.nocase === true
  // The plain globs go to the matcher that cannot backtrack for ever (a `*a*a*…b` regex froze the server: issue 40).
  const linear = LinearGlob.parse(pattern)
  if (linear !== undefined && LinearGlob.risky(linear)) {
    const [first, last] = linear.segments
    if (!pattern.includes("/") && first?._tag === "Tokens") {
      return (folder, name) => name === pattern || LinearGlob.segmentMatches(first.tokens, name, nocase)
    }
    if (linear.segments.length === 2 && first?._tag === "GlobStar" && last?._tag === "Tokens") {
      return (folder, name) => joinedIs(folder, name, pattern) || LinearGlob.segmentMatches(last.tokens, name, nocase)
    }
    return (folder, name) => {
      const path = folder + name
      return path === pattern || LinearGlob.matches(linear, path, nocase)
    }
  }
  const compiled = (glob: string, matchBase: boolean) => {
    // `posix`: `[!a-z]` is a negated class, as in the shell and gitignore (without it picomatch reads a class holding
    // `!`, and glob returned exactly the names it should have left out: issue 40).
    const opts = { dot: true, nocase, matchBase, posix: true }
    // The regex picomatch's matcher tests with: compiled from the state its entry point parsed (with the platform's
    // `windows` it adds), so it is the very same one.
    const fixed = negatedClassesSkipSlash(glob)
    return picomatch.compileRe(picomatch(fixed, opts, true).state, opts)
  }
  if (!pattern.includes("/")) {
    const regex = compiled(pattern, true)
    return (folder, name) => (folder === "" && name === pattern) || regex.test(name)
  }
  if (byName.test(pattern) && !pattern.slice(3).includes("**")) {
    const regex = compiled(pattern.slice(3), false)
    return (folder, name) => joinedIs(folder, name, pattern) || regex.test(name)
  }
  const regex = compiled(pattern, false)
  return (folder, name) => {
    const path = folder + name
    return path === pattern || regex.test(path)
  }
}
