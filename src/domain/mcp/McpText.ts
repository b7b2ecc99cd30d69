/**
 * Text from an MCP server on its way to a model or a terminal: control characters (NUL, ANSI escapes, a lone CR,
 * bidi overrides) made visible as `\uXXXX` instead of passed through raw, long text cut visibly, and the SDK's
 * doubled error prefix (`MCP error -32602: MCP error -32602: …`) said once. Pure.
 */

// C0 controls but tab and newline, DEL, C1 controls, a CR not ending a line, and the bidi embedding/isolate marks.
const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g

/** The text with every control character spelled out (`\u001b[31m` for a colour escape), newlines and tabs kept. */
export const visible = (text: string): string =>
  text.replace(controls, (c) => (c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))

/** One line: `visible`, with line breaks and tabs spelled out too (a prompt's text cannot pass for a new line). */
export const oneLine = (text: string): string =>
  visible(text).replace(/\r\n|\n|\t|\u2028|\u2029/g, (c) => (c === "\n" ? "\\n" : c === "\r\n" ? "\\r\\n" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16)}`))

/** At most `max` characters, the rest replaced by a marker that says how much was cut. */
export const capped = (text: string, max: number, what = "text"): string =>
  text.length <= max ? text : `${text.slice(0, max)}… [${what} cut: ${text.length - max} more characters]`

const prefix = /(MCP error -?\d+: )(?:MCP error -?\d+: )+/g

/** An error message with a repeated `MCP error CODE: ` prefix said once. */
export const singlePrefix = (message: string): string => message.replace(prefix, "$1")
