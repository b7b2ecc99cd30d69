/**
 * A command's output redacted as it streams: whole lines only (a token is never cut in two by a chunk boundary),
 * each through `Redact`, a private key block hidden from its BEGIN line to its END line, and the total capped at
 * `maxBytes` (then one marker line, and nothing more). A line longer than `maxLine` is let out in pieces of that
 * size. Pure state over strings: the caller writes what `push` and `end` return.
 */
import { redact } from "./Redact.js"

export interface StreamRedactor {
  /** The text ready to show after this chunk (whole lines, redacted), possibly "". */
  readonly push: (chunk: string) => string
  /** What is left (a last line without its newline), redacted. */
  readonly end: () => string
}

export const maxLine = 4096

const keyBegin = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/
const keyEnd = /-----END [A-Z0-9 ]*PRIVATE KEY-----/

export const make = (maxBytes: number): StreamRedactor => {
  let carry = ""
  let inKey = false
  let shown = 0
  let capped = false
  const encoder = new TextEncoder()
  const emit = (lines: ReadonlyArray<string>): string => {
    let out = ""
    for (const raw of lines) {
      if (capped) break
      let line: string
      if (inKey) {
        if (keyEnd.test(raw)) inKey = false
        continue
      }
      if (keyBegin.test(raw) && !keyEnd.test(raw)) {
        inKey = true
        line = "[redacted: private key]\n"
      } else {
        line = redact(raw)
      }
      const bytes = encoder.encode(line).byteLength
      if (shown + bytes > maxBytes) {
        capped = true
        out += `[output past ${maxBytes} bytes not shown as it comes: the result below is capped the same way]\n`
        break
      }
      shown += bytes
      out += line
    }
    return out
  }
  return {
    push: (chunk) => {
      if (capped) return ""
      carry += chunk
      const lines: Array<string> = []
      let at = carry.indexOf("\n")
      while (at !== -1) {
        lines.push(carry.slice(0, at + 1))
        carry = carry.slice(at + 1)
        at = carry.indexOf("\n")
      }
      while (carry.length > maxLine) {
        lines.push(`${carry.slice(0, maxLine)}\n`)
        carry = carry.slice(maxLine)
      }
      return emit(lines)
    },
    end: () => {
      const rest = carry
      carry = ""
      return rest === "" || capped ? "" : emit([`${rest}\n`])
    }
  }
}
