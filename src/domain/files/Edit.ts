/**
 * The exact-match edit, pure. It is applied once per call: by the Journal stage on the bytes it snapshots (the result
 * is recorded as intended and handed down on the invocation as `edited`), or by the file tool when no journal ran.
 */
import { Either } from "effect"

export const count = (haystack: string, needle: string): number => {
  let n = 0
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++
  return n
}

export type EditError =
  | { readonly _tag: "NotFound"; readonly nearMatch: boolean }
  | { readonly _tag: "Ambiguous"; readonly matches: number }

export const apply = (
  before: string,
  oldText: string,
  newText: string,
  replaceAll: boolean
): Either.Either<{ readonly after: string; readonly replacements: number }, EditError> => {
  const n = count(before, oldText)
  if (n === 0) return Either.left({ _tag: "NotFound", nearMatch: oldText.trim() !== "" && before.includes(oldText.trim()) })
  if (n > 1 && !replaceAll) return Either.left({ _tag: "Ambiguous", matches: n })
  // split/join and a replacer function, never a replacement string: `$&` and friends in new_string stay literal.
  const after = replaceAll ? before.split(oldText).join(newText) : before.replace(oldText, () => newText)
  return Either.right({ after, replacements: n })
}

/** An edit's outcome on a file's bytes (as `edit_file` decodes them: UTF-8, lenient), the new bytes on success. */
export type Outcome = Either.Either<{ readonly after: Uint8Array; readonly replacements: number }, EditError>

const decoder = new TextDecoder("utf-8")
const encoder = new TextEncoder()

export const applyTo = (
  before: Uint8Array,
  args: { readonly old_string: string; readonly new_string: string; readonly replace_all?: boolean | undefined }
): Outcome =>
  Either.map(apply(decoder.decode(before), args.old_string, args.new_string, args.replace_all === true), (e) => ({
    after: encoder.encode(e.after),
    replacements: e.replacements
  }))
