/**
 * grep's search of one file's bytes, chunk by chunk as `FileSystem.scan` hands them over: the bytes are searched
 * for the pattern's required literal first (`Buffer.indexOf`, or a case-insensitive scan of the Latin-1 view for
 * an ASCII literal), and only a line that holds it is decoded and tested with the regex. Lines are numbered by
 * counting newlines only where a hit needs it, or across chunks of a big file. A line split across two chunks is
 * carried over. A file whose first 8 KiB hold a NUL byte is binary: it is only told whether it matches.
 */
import * as RegexLiteral from "../domain/files/RegexLiteral.js"

export interface Matcher {
  readonly regex: RegExp
  /** The required literal's UTF-8 bytes seen as Latin-1 (one char a byte), or "" when there is none. */
  readonly literal: string
  readonly literalBytes: Buffer | undefined
  /** For a case-insensitive ASCII literal: finds it in the Latin-1 view. */
  readonly literalCi: RegExp | undefined
  /** The regex is the literal itself: a hit is a match. */
  readonly plain: boolean
  /**
   * Whether some bytes may hold a match's required literal (one of the branches' literals for an alternation), and
   * how many bytes of the end of one run to keep so a literal cut between two runs is seen; undefined when no
   * literal is known (anything may match). Used for what is not kept of a line over `maxCarry`.
   */
  readonly hint: { readonly test: (bytes: Buffer) => boolean; readonly bytes: number } | undefined
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/**
 * The regex for `pattern`. Case-insensitive, it folds case as ripgrep and git grep do (Unicode simple case folding:
 * `ſ` is an `s`, the Kelvin sign a `k`, `ς` a `σ`), which JavaScript does only with the `u` flag: taken when the
 * pattern means the same with it (it compiles, and has no `\u{`, a repetition of `u` without the flag). Was a
 * difference between the engines: rg matched `ſ` for `s`, grep's own walk did not.
 */
const compile = (pattern: string, ignoreCase: boolean): RegExp => {
  if (!ignoreCase) return new RegExp(pattern, "")
  if (!pattern.includes("\\u{")) {
    try {
      return new RegExp(pattern, "iu")
    } catch {
      // Not a valid pattern with the `u` flag (`\-`, a lone `{`…): JavaScript's own case-insensitive match.
    }
  }
  return new RegExp(pattern, "i")
}

/**
 * The case-insensitive search for an ASCII literal in a Latin-1 view of UTF-8 bytes: an `s` or a `k` also as the
 * bytes of `ſ` (C5 BF) and of the Kelvin sign (E2 84 AA), which fold to them.
 */
const literalCiOf = (lit: string): RegExp =>
  new RegExp(
    [...lit].map((c) => (c === "s" || c === "S" ? "(?:s|\xc5\xbf)" : c === "k" || c === "K" ? "(?:k|\xe2\x84\xaa)" : escapeRegExp(c))).join(""),
    "gi"
  )

const ascii = (s: string) => /^[\x20-\x7e]*$/.test(s)

/** The literals' finder for `hint` (case-insensitive ones only when ASCII, looked for in a Latin-1 view). */
const hintOf = (literals: ReadonlyArray<string> | undefined, ignoreCase: boolean): Matcher["hint"] => {
  if (literals === undefined || (ignoreCase && !literals.every(ascii))) return undefined
  const bytes = 3 * Math.max(...literals.map((l) => Buffer.byteLength(l, "utf8")))
  if (ignoreCase) {
    const finders = literals.map(literalCiOf)
    return {
      bytes,
      test: (b) => {
        const s = b.toString("latin1")
        return finders.some((f) => {
          f.lastIndex = 0
          return f.test(s)
        })
      }
    }
  }
  const needles = literals.map((l) => Buffer.from(l, "utf8"))
  return { bytes, test: (b) => needles.some((n) => b.indexOf(n) !== -1) }
}

export const matcher = (pattern: string, ignoreCase: boolean): Matcher => {
  const regex = compile(pattern, ignoreCase)
  const lit = RegexLiteral.requiredLiteral(pattern)
  const hint = hintOf(RegexLiteral.branchLiterals(pattern), ignoreCase)
  if (lit === "" || (ignoreCase && !ascii(lit))) return { regex, literal: "", literalBytes: undefined, literalCi: undefined, plain: false, hint }
  const bytes = Buffer.from(lit, "utf8")
  return {
    regex,
    literal: bytes.toString("latin1"),
    literalBytes: ignoreCase ? undefined : bytes,
    literalCi: ignoreCase ? literalCiOf(lit) : undefined,
    plain: !ignoreCase && RegexLiteral.isPlainLiteral(pattern),
    hint
  }
}

/** Called for each matching line (1-based number, decoded text); return false to stop searching this file. */
export type OnLine = (line: number, text: string) => boolean

const countNewlines = (s: string, from: number, to: number): number => {
  let n = 0
  for (let i = s.indexOf("\n", from); i !== -1 && i < to; i = s.indexOf("\n", i + 1)) n++
  return n
}

/** The newlines in `buf` from `from` to `to`, counted in the bytes (no string of them). */
const newlinesIn = (buf: Buffer, from: number, to: number): number => {
  let n = 0
  for (let i = buf.indexOf(10, from); i !== -1 && i < to; i = buf.indexOf(10, i + 1)) n++
  return n
}

/**
 * `searchLines` for a case-sensitive literal: found in the bytes, and only the lines that hold it decoded. Was a
 * Latin-1 string of every chunk that held it, and of every chunk of a big file to count its newlines: strings of
 * a megabyte are made outside V8's heap, and the bench tree's big files had ~17 MB of them alive at once.
 */
const searchBytes = (m: Matcher, literal: Buffer, buf: Buffer, line: number, needCount: boolean, onLine: OnLine): number | undefined => {
  let counted = 0
  let at = line
  for (let hit = buf.indexOf(literal); hit !== -1; ) {
    const start = buf.lastIndexOf(10, hit) + 1
    const nl = buf.indexOf(10, hit)
    const end = nl === -1 ? buf.byteLength : nl
    at += newlinesIn(buf, counted, start)
    counted = start
    const text = buf.toString("utf8", start, end)
    if ((m.plain || m.regex.test(text)) && !onLine(at, text)) return undefined
    if (nl === -1) break
    hit = buf.indexOf(literal, nl + 1)
  }
  return needCount ? at - line + newlinesIn(buf, counted, buf.byteLength) : -1
}

/**
 * Searches the complete lines in `buf` (the last one may lack its newline when `final`), numbered from `line`.
 * Returns the number of newlines in `buf` when `needCount`, else -1 (the caller needs no count), or undefined
 * when `onLine` asked to stop.
 */
const searchLines = (m: Matcher, buf: Buffer, line: number, needCount: boolean, onLine: OnLine): number | undefined => {
  if (buf.byteLength === 0) return 0
  if (m.literal === "") {
    // No literal every match holds, but one of the branches' (an alternation): bytes with none of them hold no match.
    if (m.hint !== undefined && !m.hint.test(buf)) return needCount ? newlinesIn(buf, 0, buf.byteLength) : -1
    const text = buf.toString("utf8")
    const lines = text.split("\n")
    const n = text.endsWith("\n") ? lines.length - 1 : lines.length
    for (let i = 0; i < n; i++) {
      const l = lines[i] ?? ""
      if (m.regex.test(l) && !onLine(line + i, l)) return undefined
    }
    return text.endsWith("\n") ? n : n - 1
  }
  if (m.literalBytes !== undefined) return searchBytes(m, m.literalBytes, buf, line, needCount, onLine)
  const s = buf.toString("latin1")
  const next = (from: number): number => {
    if (m.literalCi === undefined) return s.indexOf(m.literal, from)
    m.literalCi.lastIndex = from
    return m.literalCi.exec(s)?.index ?? -1
  }
  let counted = 0
  let at = line
  for (let hit = next(0); hit !== -1; ) {
    const start = s.lastIndexOf("\n", hit) + 1
    const nl = s.indexOf("\n", hit)
    const end = nl === -1 ? s.length : nl
    at += countNewlines(s, counted, start)
    counted = start
    const text = buf.toString("utf8", start, end)
    if ((m.plain || m.regex.test(text)) && !onLine(at, text)) return undefined
    if (nl === -1) break
    hit = next(nl + 1)
  }
  return needCount ? at - line + countNewlines(s, counted, s.length) : -1
}

const none = Buffer.alloc(0)

/** The longest line carried across chunks; a longer one is searched in its first `maxCarry` bytes only. */
export const maxCarry = 8 * 1024 * 1024

export interface FileSearch {
  /** Feeds the next chunk; false once the search of this file is over (stopped, or a binary file decided). */
  readonly feed: (bytes: Uint8Array, first: boolean, last: boolean) => boolean
  readonly binary: () => boolean
  /** A binary file holds a match. */
  readonly binaryMatch: () => boolean
  readonly longLine: () => boolean
  /**
   * Makes it a new file's search (as a new `fileSearch` would be): grep's own walk keeps one for all its files. A
   * search and its closures made per file were ~0.5 KB a file that V8 took to the old generation, 32 MB over the
   * bench tree's 60,000 files.
   */
  readonly reset: () => void
}

export const fileSearch = (m: Matcher, onLine: OnLine): FileSearch => {
  let line = 1
  let carry: Buffer | undefined
  let binary = false
  let binaryMatch = false
  let longLine = false
  let open = true
  let lastHit = 0
  // A line longer than `maxCarry`: its first `maxCarry` bytes are kept and searched; the rest is only looked at for
  // the required literal (`tail` holds the last bytes looked at, so a literal cut between two chunks is seen). When
  // no match can lie in what was not kept (the literal is nowhere in the line, or the pattern is that literal),
  // the answer is whole; else the file is named as searched in part. Was: every line over 8 MB named so, a 70 MB
  // line of NULs in a sparse file too, where ripgrep (which keeps any line whole) says nothing.
  let dropped = false
  let literalDropped = false
  let tail: Buffer = none
  const tailBytes = m.hint?.bytes ?? 0
  // The carried line's bytes live in one buffer kept for every file of the search (grown as a line needs, to at
  // most `maxCarry` and a chunk): `carry` is a view of it. Was a new buffer per chunk a line spanned, and a
  // concatenation for its end: a 2 MB minified line made 3 MB of buffers that lived until a collection, and three
  // such files in a row (the bench tree's copies of a Swagger bundle) put 9 MB on a one-shot grep's peak.
  let store: Buffer = none
  const keptStore = 256 * 1024
  /** `carry`'s bytes followed by `more`'s, in `store` (grown, keeping what it holds, when they do not fit). */
  const append = (more: Uint8Array): Buffer => {
    const held = carry?.byteLength ?? 0
    const need = held + more.byteLength
    if (need > store.byteLength) {
      // Room for another piece as big as this one: a line over a chunk grows the buffer once, not once a chunk.
      const grown = Buffer.allocUnsafe(Math.max(need + more.byteLength, 2 * store.byteLength, 64 * 1024))
      store.copy(grown, 0, 0, held)
      store = grown
    }
    store.set(more, held)
    return store.subarray(0, need)
  }
  const reset = () => {
    line = 1
    carry = undefined
    // A buffer grown for a long line is not kept for the files after it (most carry a few bytes, if any).
    if (store.byteLength > keptStore) store = none
    binary = false
    binaryMatch = false
    longLine = false
    open = true
    lastHit = 0
    dropped = false
    literalDropped = false
    tail = none
  }
  const drop = (b: Buffer) => {
    if (b.byteLength === 0) return
    if (!dropped) tail = Buffer.from((carry ?? none).subarray(Math.max(0, (carry?.byteLength ?? 0) - tailBytes)))
    dropped = true
    if (literalDropped) return
    const seen = Buffer.concat([tail, b])
    literalDropped = m.hint === undefined || m.hint.test(seen)
    tail = Buffer.from(seen.subarray(Math.max(0, seen.byteLength - tailBytes)))
  }
  const emit: OnLine = (n, text) => {
    lastHit = n
    if (!binary) return (open = onLine(n, text))
    binaryMatch = true
    return (open = false)
  }
  const feed = (chunk: Uint8Array, first: boolean, last: boolean): boolean => {
    if (!open) return false
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    if (first) binary = bytes.subarray(0, 8192).includes(0)
    if (carry !== undefined) {
      const nl = bytes.indexOf(10)
      const rest = bytes.subarray(0, nl === -1 ? bytes.byteLength : nl)
      if (nl === -1 && !last) {
        const room = maxCarry - carry.byteLength
        if (room > 0) carry = append(rest.subarray(0, room))
        drop(rest.subarray(Math.max(0, room)))
        return true
      }
      let head: Buffer
      if (dropped) {
        drop(rest)
        head = carry
      } else head = append(rest)
      carry = undefined
      if (searchLines(m, head, line, false, emit) === undefined) return false
      if (dropped) {
        if (lastHit !== line) {
          if (literalDropped && m.plain) {
            if (!emit(line, head.toString("utf8"))) return false
          } else if (literalDropped || (m.hint !== undefined && m.hint.test(head))) longLine = true
        }
        dropped = false
        literalDropped = false
      }
      if (nl === -1) return false
      line++
      bytes = bytes.subarray(nl + 1)
    }
    const end = last ? bytes.byteLength : bytes.lastIndexOf(10) + 1
    if (!last && end < bytes.byteLength) {
      carry = undefined
      carry = append(bytes.subarray(end))
    }
    const n = searchLines(m, bytes.subarray(0, end), line, !last, emit)
    if (n === undefined) return false
    line += n
    return !last
  }
  return { feed, binary: () => binary, binaryMatch: () => binaryMatch, longLine: () => longLine, reset }
}
