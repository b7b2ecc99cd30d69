/**
 * How the CLI lays out text for a person: wrapped to the terminal's width, in colour only when the output is a
 * terminal that wants it. Colour follows the conventions: FORCE_COLOR (not "0" or "false") turns it on, even when
 * piped; otherwise NO_COLOR (any value) or TERM=dumb turns it off; otherwise colour when stdout is a terminal.
 * Pure: the environment and the stream's facts come in as arguments.
 */

export interface Style {
  /** The widest a line may be. */
  readonly width: number
  readonly colour: boolean
}

type Env = Readonly<Record<string, string | undefined>>

export interface Stream {
  readonly isTTY?: boolean | undefined
  readonly columns?: number | undefined
}

export const defaultWidth = 80
const minWidth = 40
const maxWidth = 120

/** Whether to colour output going to `stream`. */
export const colourOn = (env: Env, stream: Stream): boolean => {
  const force = env["FORCE_COLOR"]
  if (force !== undefined && force !== "0" && force.toLowerCase() !== "false") return true
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false
  if (env["TERM"] === "dumb") return false
  return stream.isTTY === true
}

/** The terminal's width (or COLUMNS when not a terminal, else 80), kept between 40 and 120 columns for reading. */
export const widthOf = (env: Env, stream: Stream): number => {
  const fromEnv = Number.parseInt(env["COLUMNS"] ?? "", 10)
  const columns = stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : defaultWidth
  return Math.max(minWidth, Math.min(maxWidth, columns))
}

export const styleOf = (env: Env, stream: Stream): Style => ({ width: widthOf(env, stream), colour: colourOn(env, stream) })

const escape = String.fromCharCode(27)
const sgr = (on: string, off: string) => (style: Style, text: string) => (style.colour ? `${escape}[${on}m${text}${escape}[${off}m` : text)
export const bold = sgr("1", "22")
export const dim = sgr("2", "22")
export const cyan = sgr("36", "39")

/**
 * `text` in lines of at most `width` characters: broken at spaces, the first line after `first`, the others after
 * `rest`; a word longer than a line is cut.
 */
export const wrap = (text: string, width: number, first = "", rest = first): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = first
  let empty = true
  const room = (prefix: string) => Math.max(8, width - prefix.length)
  for (const raw of text.split(/\s+/).filter((w) => w !== "")) {
    let word = raw
    while (word.length > 0) {
      const space = empty ? 0 : 1
      if (line.length + space + word.length <= width) {
        line += (empty ? "" : " ") + word
        empty = false
        word = ""
      } else if (empty) {
        const cut = room(line)
        line += word.slice(0, cut)
        word = word.slice(cut)
        lines.push(line)
        line = rest
      } else {
        lines.push(line)
        line = rest
        empty = true
      }
    }
  }
  if (!empty || lines.length === 0) lines.push(line)
  return lines
}

/**
 * Terms and their descriptions in two columns: the terms padded to the longest (at most a third of the width);
 * a longer term puts its description on the next line. `paint` colours a term after it is measured.
 */
export const definitions = (
  style: Style,
  rows: ReadonlyArray<readonly [string, string]>,
  indent = 2,
  paint: (style: Style, text: string) => string = bold
): ReadonlyArray<string> => {
  const pad = " ".repeat(indent)
  const column = Math.min(Math.max(0, ...rows.map(([term]) => term.length)), Math.floor(style.width / 3))
  const out: Array<string> = []
  for (const [term, description] of rows) {
    const hang = " ".repeat(indent + column + 2)
    if (term.length <= column) {
      const lines = wrap(description, style.width, hang, hang)
      const [head = "", ...tail] = lines
      out.push(`${pad}${paint(style, term)}${" ".repeat(column - term.length + 2)}${head.slice(hang.length)}`.trimEnd(), ...tail)
    } else {
      out.push(...wrap(term, style.width, pad, `${pad}  `).map((l) => `${pad}${paint(style, l.slice(pad.length))}`))
      if (description !== "") out.push(...wrap(description, style.width, hang, hang))
    }
  }
  return out
}

/**
 * A shell command in lines of at most `width`: broken only between words (never inside quotes), each broken line
 * ending in ` \\` so the whole still pastes as one command.
 */
export const wrapCommand = (command: string, width: number, first = "", rest = first): ReadonlyArray<string> => {
  const words = command.match(/(?:'[^']*'|"[^"]*"|\S)+/g) ?? []
  const lines: Array<string> = []
  let line = first
  let empty = true
  for (const word of words) {
    if (!empty && line.length + 1 + word.length + 2 > width) {
      lines.push(`${line} \\`)
      line = rest
      empty = true
    }
    if (empty && line.length + word.length > width) {
      lines.push(...wrap(word, width, line, rest))
      line = rest
      continue
    }
    line += (empty ? "" : " ") + word
    empty = false
  }
  if (!empty || lines.length === 0) lines.push(line)
  return lines
}

/** A section heading. */
export const heading = (style: Style, text: string) => bold(style, text)
