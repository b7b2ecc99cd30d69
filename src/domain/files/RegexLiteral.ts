/**
 * The longest run of characters that every match of a JavaScript regular expression must contain, so grep can
 * look for those bytes first and run the regex only on the lines that hold them. Conservative: when in doubt
 * (alternation at the top, a construct it does not know) it answers "", which means "no prefilter", never a
 * literal a match could lack.
 *
 * It reads a closed list of constructs, the same with and without the `u` flag (grep compiles with it for
 * `ignore_case`): literal characters, the identity escapes of syntax characters (`\.`, `\(`…), the one-letter
 * classes and assertions (`\d`, `\w`, `\s`, `\b`…), control escapes (`\n`, `\t`…), classes, groups (skipped whole),
 * quantifiers. Any other escape gives up: `\uXXXX`, `\u{…}`, `\xHH`, `\cX`, `\p{…}`, `\k<name>`, back-references,
 * octal and identity escapes of letters. Was a hole (issue 40): their payload was read as literal text (`\u00a0` as
 * "00a0", `\x41` as "41", `\p{Lu}` as "{Lu"), and grep answered "no matches" where there were matches.
 */

/** Escapes whose meaning is the character itself, in both modes. */
const literalEscapes = new Set([..."^$\\.*+?()[]{}|/"])
/** One-letter escapes that stand for a class, an assertion or a control character: they end the run. */
const breakingEscapes = new Set([..."dDwWsSbBnrtfv"])

/**
 * Index just past the `]` that closes the class opened at `i`. `[]` (matches nothing) and `[^]` (matches anything)
 * close at once in JavaScript: was read as a class going on to the next `]`, taking what lay between for its content.
 */
const skipClass = (source: string, i: number): number => {
  if (source[i + 1] === "]") return i + 2
  if (source[i + 1] === "^" && source[i + 2] === "]") return i + 3
  let j = i + 1
  if (source[j] === "^") j++
  for (; j < source.length; j++) {
    if (source[j] === "\\") j++
    else if (source[j] === "]") return j + 1
  }
  return source.length
}

/** Index just past the `)` that closes the group opened at `i`. */
const skipGroup = (source: string, i: number): number => {
  let depth = 0
  for (let j = i; j < source.length; j++) {
    const c = source[j]
    if (c === "\\") j++
    else if (c === "[") j = skipClass(source, j) - 1
    else if (c === "(") depth++
    else if (c === ")" && --depth === 0) return j + 1
  }
  return source.length
}

export const requiredLiteral = (source: string): string => {
  let best = ""
  let run = ""
  const flush = () => {
    if (run.length > best.length) best = run
    run = ""
  }
  for (let i = 0; i < source.length; ) {
    const c = source[i] ?? ""
    if (c === "|") return ""
    if (c === "\\") {
      const e = source[i + 1] ?? ""
      if (literalEscapes.has(e)) run += e
      else if (breakingEscapes.has(e)) flush()
      // Anything else (a payload, a reference, a mode-dependent meaning): no prefilter rather than a guess.
      else return ""
      i += 2
      continue
    }
    if (c === "[") {
      flush()
      i = skipClass(source, i)
      continue
    }
    if (c === "(") {
      flush()
      i = skipGroup(source, i)
      continue
    }
    const braces = c === "{" ? /^\{\d+(,\d*)?\}/.exec(source.slice(i))?.[0] : undefined
    if (c === "*" || c === "?" || braces !== undefined) {
      // The atom before is optional (or repeated a number of times this does not read): drop it.
      run = run.slice(0, -1)
      flush()
      i += braces === undefined ? 1 : braces.length
      continue
    }
    if (c === "+") {
      flush()
      i++
      continue
    }
    if (c === "." || c === "^" || c === "$" || c === "}" || c === "]" || c === ")" || c === "\n" || c === "\r") {
      flush()
      i++
      continue
    }
    run += c
    i++
  }
  flush()
  // Characters whose bytes a decoded line may show without the file holding them (replacement, lone surrogates).
  return /[\ud800-\udfff\ufffd]/.test(best) ? "" : best
}

/** True when the pattern is only a literal (no metacharacter): a line holding it matches. */
export const isPlainLiteral = (source: string): boolean => source !== "" && !/[\\^$.*+?()[\]{}|\r\n]/.test(source)

/**
 * For a pattern whose top level is an alternation (`a|b`): the required literal of each branch, so a match must
 * hold one of them; undefined when a branch has none. For a pattern without one, its required literal alone.
 */
export const branchLiterals = (source: string): ReadonlyArray<string> | undefined => {
  const branches: Array<string> = []
  let from = 0
  for (let i = 0; i < source.length; ) {
    const c = source[i]
    if (c === "\\") i += 2
    else if (c === "[") i = skipClass(source, i)
    else if (c === "(") i = skipGroup(source, i)
    else if (c === "|") {
      branches.push(source.slice(from, i))
      from = ++i
    } else i++
  }
  branches.push(source.slice(from))
  const literals = branches.map(requiredLiteral)
  return literals.every((l) => l !== "") ? literals : undefined
}
