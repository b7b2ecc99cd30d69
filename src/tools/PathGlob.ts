/**
 * glob's path matcher: picomatch's (`dot`, `matchBase` for a pattern without a `/`), answering as picomatch's own
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

export type PathMatcher = (folder: string, name: string) => boolean

/** `folder + name === s`, without making the string. */
const joinedIs = (folder: string, name: string, s: string) =>
  s.length === folder.length + name.length && s.startsWith(folder) && s.endsWith(name)

const byName = /^\*\*\/[A-Za-z0-9._*-]+$/

export const matcher = (pattern: string, options: { readonly nocase?: boolean } = {}): PathMatcher => {
  const nocase = options.nocase === true
  const compiled = (glob: string, matchBase: boolean) => {
    const opts = { dot: true, nocase, matchBase }
    // The regex picomatch's matcher tests with: compiled from the state its entry point parsed (with the platform's
    // `windows` it adds), so it is the very same one.
    return picomatch.compileRe(picomatch(glob, opts, true).state, opts)
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
