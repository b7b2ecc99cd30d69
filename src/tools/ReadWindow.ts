/**
 * read_file's window of a file too large to hold whole, streamed: the chunks before the window are only searched for
 * line breaks, the window's lines are kept (a long line only up to what is shown, its length counted as it goes),
 * and reading stops at the window's last line. Was issue 40 item 6 / issue 45 item 3: a file over 50 MiB was
 * refused even with offset/limit, and a 50 MB file was read, decoded and split whole (637 ms, 196 MiB peak) to
 * keep 2,000 lines.
 *
 * What it shows is what the whole-file path shows for the same lines (same numbering, cut, binary rule, BOM note);
 * only the truncation marker differs: the file's line count is not known without reading to its end, so it says
 * the file goes on.
 */
import { hasBom } from "../domain/files/Edit.js"

/** The first bytes a NUL in which makes a file binary (as git has it). */
const binaryProbe = 8192
const LF = 10
const countPiece = 16 * 1024

export type Window =
  | { readonly _tag: "Binary" }
  | { readonly _tag: "Empty" }
  | { readonly _tag: "PastEnd"; readonly lines: number }
  | {
      readonly _tag: "Lines"
      readonly lines: ReadonlyArray<string>
      /** Per line, its length when it was cut to `lineChars` (the line then holds only what is shown). */
      readonly lengths: ReadonlyArray<number | undefined>
      /** The file's line count when it was read to its end; undefined when reading stopped after the window. */
      readonly total: number | undefined
      readonly bom: boolean
    }

export interface Reader {
  /** Takes the next chunk (copied from as needed); false when nothing more is needed. */
  readonly push: (chunk: Uint8Array) => boolean
  readonly end: () => Window
}

/**
 * `budget`: the most characters worth keeping (the output's cap): once the lines kept pass it, the window ends at that
 * line, so a `limit` of millions keeps memory to what can be shown (the cap would cut the rest).
 */
export const reader = (first: number, limit: number, lineChars: number, budget = Number.POSITIVE_INFINITY): Reader => {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  // A line's first `keep` bytes always decode to more than `lineChars` UTF-16 units (at most 3 bytes make one).
  const keep = 3 * lineChars + 3
  const cur = new Uint8Array(keep)
  let curLen = 0
  let overflow: { readonly decoder: InstanceType<typeof TextDecoder>; readonly head: string; units: number } | undefined
  const lines: Array<string> = []
  const lengths: Array<number | undefined> = []
  let last = first + limit - 1
  let kept = 0
  let lineNo = 1
  let seen = 0
  let lastByte = -1
  let binary = false
  let bom = false
  let stopped = false

  const append = (chunk: Uint8Array, from: number, to: number) => {
    if (to <= from) return
    if (overflow !== undefined) {
      // Counted in small pieces: each decoded piece is garbage at once, young and cheap to collect (1 MiB strings
      // went to the large-object space, and a 64 MiB line grew the server's peak RSS by 80 MB before a collection).
      for (let at = from; at < to; at += countPiece) overflow.units += overflow.decoder.decode(chunk.subarray(at, Math.min(to, at + countPiece)), { stream: true }).length
      return
    }
    if (curLen + (to - from) <= keep) {
      cur.set(chunk.subarray(from, to), curLen)
      curLen += to - from
      return
    }
    const d = new TextDecoder("utf-8", { ignoreBOM: true })
    const start = d.decode(cur.subarray(0, curLen), { stream: true }) + d.decode(chunk.subarray(from, to), { stream: true })
    overflow = { decoder: d, head: start.slice(0, lineChars), units: start.length }
  }

  const finishLine = () => {
    if (overflow !== undefined) {
      overflow.units += overflow.decoder.decode().length
      lines.push(overflow.head)
      lengths.push(overflow.units)
    } else {
      lines.push(decoder.decode(cur.subarray(0, curLen)))
      lengths.push(undefined)
    }
    overflow = undefined
    curLen = 0
    // Each line shown as its number, a tab and at most lineChars characters (and a note when cut).
    kept += 8 + Math.min(lines[lines.length - 1]?.length ?? 0, lineChars)
    if (kept > budget) last = Math.min(last, lineNo)
  }

  const push = (chunk: Uint8Array): boolean => {
    if (chunk.length === 0) return true
    let pos = 0
    if (seen === 0 && hasBom(chunk)) {
      bom = true
      pos = 3
    }
    if (seen < binaryProbe && chunk.subarray(0, binaryProbe - seen).includes(0)) {
      binary = true
      return false
    }
    seen += chunk.length
    // Past the window, read on only as far as the binary rule looks (a file's first chunk already covers it).
    if (stopped) return seen < binaryProbe
    while (pos < chunk.length) {
      if (lineNo > last) {
        // A byte after the window's last line: the file goes on, and nothing more is needed.
        stopped = true
        return seen < binaryProbe
      }
      const nl = chunk.indexOf(LF, pos)
      if (lineNo >= first) append(chunk, pos, nl < 0 ? chunk.length : nl)
      if (nl < 0) break
      if (lineNo >= first) finishLine()
      lineNo++
      pos = nl + 1
    }
    lastByte = chunk[chunk.length - 1] ?? -1
    return true
  }

  const end = (): Window => {
    if (binary) return { _tag: "Binary" }
    if (stopped) return { _tag: "Lines", lines, lengths, total: undefined, bom }
    if (seen === 0 || (bom && seen === 3)) return { _tag: "Empty" }
    // The last line has no line break after it: it counts, and is shown when in the window.
    const partial = lastByte !== LF
    if (partial && lineNo >= first && lineNo <= last) finishLine()
    const total = lineNo - 1 + (partial ? 1 : 0)
    if (first > total) return { _tag: "PastEnd", lines: total }
    return { _tag: "Lines", lines, lengths, total, bom }
  }

  return { push, end }
}
