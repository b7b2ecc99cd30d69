/**
 * Whether a path argument names one file exactly as the caller meant it. A JSON string can hold an unpaired UTF-16
 * surrogate (`"\ud800"`), which no UTF-8 file name can: Node writes it as U+FFFD's bytes, a name the caller never
 * sent. Invalid UTF-8 (in argv, on mcp serve's stdin, in a client's own decoding) reaches us already replaced by
 * U+FFFD, so a U+FFFD in a path is the trace of bytes lost before the call arrived: which name was meant is unknown.
 * Both are refused with a sentence, before the jail or any file is touched (was issue 40 item 12: `x\xff.txt`
 * created `x\uFFFD.txt`).
 */

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const hex = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`

/** Why `path` cannot be used as sent, or undefined when it can. */
export const problem = (path: string): string | undefined => {
  const lone = loneSurrogate.exec(path)
  if (lone !== null) {
    return `the path has an unpaired surrogate (${hex(lone[0])}) at character ${lone.index + 1}, which no file name can hold: it would become a different name; send the path as valid Unicode`
  }
  const replaced = path.indexOf("\uFFFD")
  if (replaced >= 0) {
    return `the path has U+FFFD (the replacement character) at character ${replaced + 1}, which is what bytes that are not valid UTF-8 become when decoded: the name as sent is lost, and a file would be made or read under another one; send the path as valid UTF-8`
  }
  return undefined
}
