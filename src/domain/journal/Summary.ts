/**
 * A journal record's summary: what the call did, in words a person reads in `minicode journal`. Only bash has one
 * (its command: the tool's whole meaning, which the record's paths do not show). It is redacted before it is
 * stored — the token shapes of `Redact`, then values assigned to names that look secret (`PGPASSWORD=…`,
 * `--token=…`) and the password of a URL — and cut to `maxChars`. The arguments themselves are never stored.
 */
import type { ToolCall } from "../core/Tools.js"
import { redact } from "../core/Redact.js"

export const maxChars = 500

const secretName = String.raw`[A-Za-z0-9_-]*(?:PASS(?:WORD|WD)?|SECRET|TOKEN|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|CREDENTIALS?)[A-Za-z0-9_-]*`

const rules: ReadonlyArray<readonly [RegExp, string]> = [
  // NAME=value and --name=value / --name value, for names that look secret.
  [new RegExp(String.raw`(\b${secretName}=)("[^"]*"|'[^']*'|\S+)`, "gi"), "$1[redacted]"],
  [new RegExp(String.raw`(--${secretName}[= ])("[^"]*"|'[^']*'|\S+)`, "gi"), "$1[redacted]"],
  // scheme://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^@\s/]+@/gi, "$1[redacted]@"]
]

/** Redacted and cut to `maxChars` (with an ellipsis). */
export const redactCommand = (command: string): string => {
  let text = redact(command)
  for (const [pattern, replacement] of rules) text = text.replace(pattern, replacement)
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text
}

/** The summary a call's record keeps, or undefined. */
export const of = (call: ToolCall): string | undefined => (call.tool === "bash" ? redactCommand(call.args.command) : undefined)
