/**
 * Text from the workspace or a process, as a terminal may show it: every character that would act instead of show
 * (ESC starting a clipboard write or a screen clear, the other C0 controls, DEL, the C1 controls U+0080-U+009F that
 * some terminals take as ESC sequences, and the bidi controls that reorder a line: U+061C, U+200E/F, U+202A-U+202E,
 * U+2066-U+2069; U+2028/9 too) is written as its JSON escape (`\u001b`), so it is seen, not obeyed. JSON output
 * keeps data exact: `json` only escapes those a JSON string may hold raw, which reads back as the same string.
 * Pure: strings in, strings out.
 */

/** Content keeps its tabs and line ends (a carriage return only before a newline: alone it overwrites a line). */
const inContent = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
/** One line (a prompt's command, a status note): tabs and newlines shown too. */
const inLine = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
/** In JSON text, what JSON.stringify leaves raw (it escapes C0 itself). */
const inJson = /[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const named: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" }
const escape = (c: string) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

const replaced = (text: string, pattern: RegExp) => {
  pattern.lastIndex = 0
  if (!pattern.test(text)) return text
  pattern.lastIndex = 0
  return text.replace(pattern, escape)
}

/** Many lines of content (a tool's result, a command's output, an error message): tabs and newlines kept. */
export const text = (value: string): string => replaced(value, inContent)

/** One line: every control made visible, newlines and tabs included, so nothing can start a forged line. */
export const line = (value: string): string => replaced(value, inLine)

/** JSON text (from JSON.stringify) with the characters it leaves raw escaped: parses back to the very same data. */
export const json = (value: string): string => replaced(value, inJson)

/** Whether `value` holds a character `text` would change. */
export const hasControl = (value: string): boolean => {
  inContent.lastIndex = 0
  return inContent.test(value)
}
