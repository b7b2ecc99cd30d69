/**
 * Options of a command line: where its operands start (for wrappers and file tools alike), and a token such as
 * `{}` replaced by what it stands for (`xargs -I`, `find -exec`).
 */
import type * as W from "../BashWords.js"

/** No option takes a value. */
export const noValued: ReadonlySet<string> = new Set()

/** The first operand after options; `valued` options consume the next word unless attached (`-n5`, `--x=1`). */
export const skipOptions = (lits: ReadonlyArray<string | undefined>, from: number, valued: ReadonlySet<string>): number => {
  let i = from
  for (; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) return i
    if (a === "--") return i + 1
    if (!a.startsWith("-") || a === "-") return i
    if (/^-\d+$/.test(a)) continue
    if (valued.has(a)) i++
  }
  return i
}

export const replaceToken = (f: W.Field, token: string, by: W.Field): W.Field => {
  if (token === "") return f
  const out: Array<W.Ch> = []
  for (let i = 0; i < f.length; i++) {
    let match = true
    for (let j = 0; j < token.length; j++) if (f[i + j]?.c !== token[j] || f[i + j]?.k === "unk") match = false
    if (match) {
      out.push(...by)
      i += token.length - 1
    } else {
      const ch = f[i]
      if (ch !== undefined) out.push(ch)
    }
  }
  return out
}
