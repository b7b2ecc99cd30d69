/**
 * A JavaScript regex (grep's syntax: no flags but `i`, matched line by line) rewritten for ripgrep's Rust regex
 * engine with the same meaning, or undefined when there is no faithful rewrite (look-around, back-references,
 * named groups, `\c`, an empty class…): the caller then searches with its own engine.
 *
 * What differs and is rewritten: JavaScript's `\d`, `\w`, `\b` (and negations) are ASCII, Rust's Unicode, so they
 * become `(?-u:…)` (inside a class, the ASCII ranges); JavaScript's `.` also leaves out `\r`, U+2028 and U+2029;
 * `\uXXXX` is Rust's `\x{XXXX}`; an identity escape of a character Rust does not know as an escape (`\/`, `\a`) is
 * the character; a brace that is not a quantifier is literal in JavaScript, escaped for Rust; `[`, `&`, `~` inside a
 * class are literal in JavaScript, set syntax in Rust, so escaped. `\s` is Unicode in both.
 */

const rustMeta = new Set(["\\", ".", "+", "*", "?", "(", ")", "|", "[", "]", "{", "}", "^", "$", "#", "&", "-", "~"])
const hex = /^[0-9a-fA-F]{4}$/
const quantifier = /^\{\d+(,\d*)?\}/

export const fromJs = (pattern: string): string | undefined => {
  let out = ""
  let inClass = false
  let classStart = -1
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? ""
    if (c === "\\") {
      const e = pattern[i + 1]
      if (e === undefined) return undefined
      i++
      if ("dwDWbB".includes(e)) {
        if (!inClass) out += `(?-u:\\${e})`
        else if (e === "d") out += "0-9"
        else if (e === "w") out += "0-9A-Za-z_"
        // Inside a class JavaScript's \b is a backspace.
        else if (e === "b") out += "\\x08"
        else return undefined
      } else if ("sSnrtfv".includes(e)) out += `\\${e}`
      else if (e === "0") {
        if (/[0-9]/.test(pattern[i + 1] ?? "")) return undefined
        out += "\\x00"
      } else if (e === "x") {
        const h = pattern.slice(i + 1, i + 3)
        if (!/^[0-9a-fA-F]{2}$/.test(h)) return undefined
        out += `\\x${h}`
        i += 2
      } else if (e === "u") {
        const h = pattern.slice(i + 1, i + 5)
        if (!hex.test(h)) return undefined
        out += `\\x{${h}}`
        i += 4
      } else if (/[1-9kcpPu]/.test(e)) return undefined
      else if (rustMeta.has(e)) out += `\\${e}`
      else if (/[A-Za-z]/.test(e)) out += e
      else out += e
      continue
    }
    if (inClass) {
      if (c === "]" && i > classStart) {
        inClass = false
        out += "]"
      } else if (c === "[" || c === "&" || c === "~") out += `\\${c}`
      else if (c === "-" && pattern[i + 1] === "-") return undefined
      else out += c
      continue
    }
    if (c === "[") {
      if (pattern[i + 1] === "]" || pattern.startsWith("[^]", i)) return undefined
      inClass = true
      out += "["
      if (pattern[i + 1] === "^") {
        out += "^"
        i++
      }
      classStart = i + 1
      continue
    }
    if (c === "(" && pattern[i + 1] === "?") {
      if (pattern[i + 2] !== ":") return undefined
      out += "(?:"
      i += 2
      continue
    }
    if (c === "{") {
      const q = quantifier.exec(pattern.slice(i))
      if (q !== null) {
        out += q[0]
        i += q[0].length - 1
      } else out += "\\{"
      continue
    }
    if (c === "}") {
      out += "\\}"
      continue
    }
    if (c === ".") {
      out += "[^\\n\\r\\x{2028}\\x{2029}]"
      continue
    }
    out += c
  }
  return inClass ? undefined : out
}
