/**
 * A glob matcher that cannot backtrack for ever: picomatch turns `*a*a*a*…b` into a regex of lazy `[^/]*?` runs, which
 * V8 takes minutes (or longer) to refuse on one 40-character name, on the thread that answers every other call
 * (issue 40). For the globs of that shape (`risky`) made only of literals, `?`, `*`, `**` as a whole segment, classes
 * `[a-z]`, `[!…]`, `[^…]` and backslash escapes, this answers as the shell does with `globstar` and `dotglob` (a `*`,
 * `?` or class never matches `/`; dot files are matched like any other; a star may match nothing, where picomatch
 * wants a character after `*.`), in time linear in the name times the pattern: each segment is matched by
 * the two-pointer wildcard walk (a star's match is only ever widened), and the segments themselves the same way
 * around `**`. `parse` answers undefined for anything else (braces, extglobs, POSIX classes, a leading `!`): the caller
 * keeps picomatch for those. Pure.
 */

type Token =
  | { readonly _tag: "Char"; readonly c: string }
  | { readonly _tag: "Any" }
  | { readonly _tag: "Star" }
  | { readonly _tag: "Class"; readonly negated: boolean; readonly ranges: ReadonlyArray<readonly [string, string]> }

type Segment = { readonly _tag: "GlobStar" } | { readonly _tag: "Tokens"; readonly tokens: ReadonlyArray<Token> }

export interface Parsed {
  readonly segments: ReadonlyArray<Segment>
}

/** The class starting at `glob[i]` (`[`): its token and the index after its `]`, or undefined when not a plain one. */
const classAt = (glob: string, i: number): readonly [Token, number] | undefined => {
  let j = i + 1
  const negated = glob[j] === "!" || glob[j] === "^"
  if (negated) j++
  const ranges: Array<readonly [string, string]> = []
  let first = true
  for (; j < glob.length; j++) {
    const c = glob[j] ?? ""
    if (c === "]" && !first) return [{ _tag: "Class", negated, ranges }, j + 1]
    // A `]` first, an escape, a nested `[` (POSIX classes) or a `/`: picomatch's to read.
    if (first && c === "]") return undefined
    first = false
    if (c === "[" || c === "/" || c === "\\") return undefined
    if (glob[j + 1] === "-" && glob[j + 2] !== undefined && glob[j + 2] !== "]") {
      const to = glob[j + 2] ?? ""
      if (to === "[" || to === "/" || to === "\\" || to < c) return undefined
      ranges.push([c, to])
      j += 2
    } else ranges.push([c, c])
  }
  return undefined
}

const segmentTokens = (segment: string): ReadonlyArray<Token> | undefined => {
  const tokens: Array<Token> = []
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] ?? ""
    const next = segment[i + 1]
    // Braces, extglobs and parentheses are picomatch's to read.
    if (c === "{" || c === "}" || c === "(" || c === ")" || c === "|") return undefined
    if ((c === "@" || c === "!" || c === "+") && next === "(") return undefined
    if (c === "\\") {
      if (next === undefined) return undefined
      tokens.push({ _tag: "Char", c: next })
      i++
    } else if (c === "?") tokens.push({ _tag: "Any" })
    else if (c === "*") {
      if (next === "*") return undefined
      if (tokens[tokens.length - 1]?._tag !== "Star") tokens.push({ _tag: "Star" })
    } else if (c === "[") {
      const cls = classAt(segment, i)
      if (cls === undefined) return undefined
      tokens.push(cls[0])
      i = cls[1] - 1
    } else tokens.push({ _tag: "Char", c })
  }
  return tokens
}

/** The glob's segments, or undefined when it uses anything but the plain subset above. */
export const parse = (glob: string): Parsed | undefined => {
  if (glob === "" || glob.startsWith("!") || glob.startsWith("/") || glob.endsWith("/") || glob.includes("//")) return undefined
  const segments: Array<Segment> = []
  for (const raw of glob.split("/")) {
    if (raw === "**") {
      if (segments[segments.length - 1]?._tag !== "GlobStar") segments.push({ _tag: "GlobStar" })
      continue
    }
    if (raw === "." || raw === "..") return undefined
    const tokens = segmentTokens(raw)
    if (tokens === undefined) return undefined
    segments.push({ _tag: "Tokens", tokens })
  }
  return { segments }
}

const fold = (c: string, nocase: boolean) => (nocase ? c.toLowerCase() : c)

const one = (t: Token, c: string, nocase: boolean): boolean => {
  switch (t._tag) {
    case "Char":
      return fold(t.c, nocase) === fold(c, nocase)
    case "Any":
      return true
    case "Star":
      return false
    case "Class": {
      const inside = t.ranges.some(([a, b]) =>
        nocase ? (fold(c, true) >= fold(a, true) && fold(c, true) <= fold(b, true)) || (c >= a && c <= b) : c >= a && c <= b
      )
      return t.negated ? !inside : inside
    }
  }
}

/**
 * The two-pointer wildcard walk over `length` items: a star item takes any run, its match only ever widened (so at most
 * items × pattern steps, never a backtracking search). For a segment's characters and for a path's segments alike.
 */
const walk = <P>(pattern: ReadonlyArray<P>, length: number, isStar: (p: P) => boolean, fits: (p: P, at: number) => boolean): boolean => {
  let i = 0
  let j = 0
  let star = -1
  let from = 0
  while (i < length) {
    const t = pattern[j]
    if (t !== undefined && isStar(t)) {
      star = j++
      from = i
    } else if (t !== undefined && fits(t, i)) {
      i++
      j++
    } else if (star >= 0) {
      j = star + 1
      i = ++from
    } else return false
  }
  while (j < pattern.length && isStar(pattern[j]!)) j++
  return j === pattern.length
}

/** One segment (no `/` in `text`) against its tokens, by UTF-16 code units as picomatch's regex (no `u` flag) reads it. */
export const segmentMatches = (tokens: ReadonlyArray<Token>, text: string, nocase: boolean): boolean =>
  walk(tokens, text.length, (t) => t._tag === "Star", (t, at) => one(t, text[at] ?? "", nocase))

/**
 * Whether picomatch's regex for this glob can backtrack without bound: two stars in one segment, or two `**`. Only
 * those are matched here; the others keep picomatch's answers (its own quirks included), which the tests pin.
 */
export const risky = (parsed: Parsed): boolean =>
  parsed.segments.filter((s) => s._tag === "GlobStar").length >= 2 ||
  parsed.segments.some((s) => s._tag === "Tokens" && s.tokens.filter((t) => t._tag === "Star").length >= 2)

/** A path's segments (relative, `/`-separated) against the glob's: the same walk, `**` standing for any run of segments. */
export const matches = (parsed: Parsed, path: string, nocase: boolean): boolean => {
  const parts = path.split("/")
  return walk(parsed.segments, parts.length, (s) => s._tag === "GlobStar", (s, at) => s._tag === "Tokens" && segmentMatches(s.tokens, parts[at] ?? "", nocase))
}
