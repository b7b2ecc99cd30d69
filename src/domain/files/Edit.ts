/**
 * The exact-match edit, pure. It is applied once per call: by the Journal stage on the bytes it snapshots (the result
 * is recorded as intended and handed down on the invocation as `edited`), or by the file tool when no journal ran.
 *
 * It works on the file's bytes, so what lies outside the replaced spans is kept byte for byte (bytes that are not
 * UTF-8 included). Was issue 40 item 3: the file was decoded (dropping a UTF-8 BOM), edited and encoded again, so
 * line 1 changed in `git diff`; and on a CRLF file an old_string written with `\n` was "not found", with no word why.
 *
 * - A BOM (EF BB BF) is kept, once: a leading U+FEFF on old_string or new_string is dropped on a file that has one.
 * - Line endings: an old_string without a CR matches whatever the file's line breaks are (CRLF, LF or a lone CR all
 *   match `\n`), and its uniqueness is judged that way. One with a CR is matched byte for byte first (`foo\r` means
 *   that CR, not the line break after it), and only when that finds nothing, as one without.
 * - new_string's line breaks are written in the style of the line they land in (`styleAt`): the breaks the replaced
 *   span holds, else the break ending its line, else the one before it; as given in a file with no line break.
 */
import { Either } from "effect"

export type Ending = "\r\n" | "\n" | "\r"

export type EditError =
  | {
      readonly _tag: "NotFound"
      readonly nearMatch: boolean
      /** The file's line breaks when they were compared loosely and the file has CRs ("CRLF", "CR", "mixed"). */
      readonly endings?: string | undefined
    }
  | { readonly _tag: "Ambiguous"; readonly matches: number; readonly endings?: string | undefined }

/** An edit's outcome on a file's bytes, the new bytes on success. */
export type Outcome = Either.Either<{ readonly after: Uint8Array; readonly replacements: number }, EditError>

const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
const encoder = new TextEncoder()
const CR = 13
const LF = 10

export const hasBom = (bytes: Uint8Array) => bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
export const bom = new Uint8Array([0xef, 0xbb, 0xbf])

/** The first index of `needle` in `hay` at or after `from`, or -1. */
const find = (hay: Uint8Array, needle: Uint8Array, from: number): number => {
  const first = needle[0]
  if (first === undefined) return -1
  const last = hay.length - needle.length
  for (let i = hay.indexOf(first, from); i >= 0 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1
    while (j < needle.length && hay[i + j] === needle[j]) j++
    if (j === needle.length) return i
  }
  return -1
}

/** Non-overlapping occurrences, left to right. */
const occurrences = (hay: Uint8Array, needle: Uint8Array): Array<number> => {
  const out: Array<number> = []
  for (let at = find(hay, needle, 0); at >= 0; at = find(hay, needle, at + needle.length)) out.push(at)
  return out
}

export interface Counts {
  readonly crlf: number
  readonly lf: number
  readonly cr: number
}

/** The line breaks in `bytes[from, to)`. */
export const countEndings = (bytes: Uint8Array, from = 0, to = bytes.length): Counts => {
  let crlf = 0
  let lf = 0
  let cr = 0
  for (let i = from; i < to; i++) {
    const b = bytes[i]
    if (b === CR) {
      if (i + 1 < to && bytes[i + 1] === LF) {
        crlf++
        i++
      } else cr++
    } else if (b === LF) lf++
  }
  return { crlf, lf, cr }
}

/** The most common break (ties: LF, then CRLF), or undefined when there is none. */
const majority = (c: Counts): Ending | undefined =>
  c.lf + c.crlf + c.cr === 0 ? undefined : c.lf >= c.crlf && c.lf >= c.cr ? "\n" : c.crlf >= c.cr ? "\r\n" : "\r"

const endingAt = (bytes: Uint8Array, i: number): Ending => (bytes[i] === LF ? "\n" : bytes[i + 1] === LF ? "\r\n" : "\r")

/**
 * The line-break style an edit of `bytes[start, end)` is written in: the breaks it replaces (the most common), else
 * the break that ends its line, else the one before it; undefined when the file has none.
 */
export const styleAt = (bytes: Uint8Array, start: number, end: number): Ending | undefined => {
  const inside = majority(countEndings(bytes, start, end))
  if (inside !== undefined) return inside
  for (let i = end; i < bytes.length; i++) {
    const b = bytes[i]
    if (b === LF) return "\n"
    if (b === CR) return endingAt(bytes, i)
  }
  for (let i = start - 1; i >= 0; i--) {
    const b = bytes[i]
    if (b === LF) return i > 0 && bytes[i - 1] === CR ? "\r\n" : "\n"
    if (b === CR) return "\r"
  }
  return undefined
}

/** Every line break of `text` (CRLF, LF, lone CR) written as `ending`. */
export const withEndings = (text: string, ending: Ending | undefined) => (ending === undefined ? text : text.replace(/\r\n|\r|\n/g, ending))

const describe = (c: Counts): string | undefined => {
  const kinds = [c.crlf > 0 ? "CRLF" : "", c.lf > 0 ? "LF" : "", c.cr > 0 ? "CR" : ""].filter((k) => k !== "")
  if (kinds.length === 0) return "no line breaks"
  return kinds.length === 1 ? `${kinds[0]} line endings` : `mixed ${kinds.join(", ")} line endings`
}

/**
 * The file with every line break as LF, and where each CR of a CRLF was taken out (its index in the result), so a
 * span of the result maps back onto the file.
 */
const normalised = (bytes: Uint8Array): { readonly bytes: Uint8Array; readonly removed: ReadonlyArray<number> } => {
  const out = new Uint8Array(bytes.length)
  const removed: Array<number> = []
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0
    if (b === CR) {
      if (bytes[i + 1] === LF) {
        removed.push(n)
        continue
      }
      out[n++] = LF
    } else out[n++] = b
  }
  return { bytes: out.subarray(0, n), removed }
}

/** How many removed CRs lie before index `i` of the normalised bytes (`removed` is sorted). */
const removedBefore = (removed: ReadonlyArray<number>, i: number) => {
  let lo = 0
  let hi = removed.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((removed[mid] ?? 0) < i) lo = mid + 1
    else hi = mid
  }
  return lo
}

const normaliseText = (text: string) => text.replace(/\r\n|\r/g, "\n")

/** The spans `[start, end)` of `body` that `old` matches, and whether the file's breaks were compared loosely. */
const spansOf = (body: Uint8Array, old: string): { readonly spans: ReadonlyArray<readonly [number, number]>; readonly loose: boolean } => {
  const exactBytes = encoder.encode(old)
  if (old.includes("\r")) {
    const exact = occurrences(body, exactBytes)
    if (exact.length > 0) return { spans: exact.map((s) => [s, s + exactBytes.length] as const), loose: false }
  }
  if (!body.includes(CR)) {
    const needle = old.includes("\r") ? encoder.encode(normaliseText(old)) : exactBytes
    return { spans: occurrences(body, needle).map((s) => [s, s + needle.length] as const), loose: old.includes("\r") }
  }
  const norm = normalised(body)
  const needle = encoder.encode(normaliseText(old))
  const spans = occurrences(norm.bytes, needle).map((s) => {
    const e = s + needle.length
    return [s + removedBefore(norm.removed, s), e + removedBefore(norm.removed, e)] as const
  })
  return { spans, loose: true }
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export const applyTo = (
  before: Uint8Array,
  args: { readonly old_string: string; readonly new_string: string; readonly replace_all?: boolean | undefined }
): Outcome => {
  const withBom = hasBom(before)
  const body = withBom ? before.subarray(3) : before
  // The BOM is the file's, kept once whatever the strings say about it.
  const old = withBom && args.old_string.startsWith("\uFEFF") ? args.old_string.slice(1) : args.old_string
  const replacement = withBom && args.new_string.startsWith("\uFEFF") ? args.new_string.slice(1) : args.new_string
  const { spans, loose } = old === "" ? { spans: [], loose: false } : spansOf(body, old)
  const endings = () => (loose || body.includes(CR) ? describe(countEndings(body)) : undefined)
  if (spans.length === 0) {
    const trimmed = normaliseText(old).trim()
    return Either.left({ _tag: "NotFound", nearMatch: trimmed !== "" && normaliseText(decoder.decode(body)).includes(trimmed), endings: endings() })
  }
  if (spans.length > 1 && args.replace_all !== true) return Either.left({ _tag: "Ambiguous", matches: spans.length, endings: endings() })
  const parts: Array<Uint8Array> = withBom ? [bom] : []
  let at = 0
  for (const [start, end] of spans) {
    parts.push(body.subarray(at, start), encoder.encode(withEndings(replacement, styleAt(body, start, end))))
    at = end
  }
  parts.push(body.subarray(at))
  return Either.right({ after: concat(parts), replacements: spans.length })
}

/**
 * What write_file writes over a file that starts with `previous` (its first bytes, or undefined when there is none):
 * the content, with the replaced file's UTF-8 BOM kept unless the content brings its own.
 */
export const written = (previous: Uint8Array | undefined, content: string): { readonly bytes: Uint8Array; readonly bomKept: boolean } => {
  const bytes = encoder.encode(content)
  return previous !== undefined && hasBom(previous) && !content.startsWith("\uFEFF") ? { bytes: concat([bom, bytes]), bomKept: true } : { bytes, bomKept: false }
}
