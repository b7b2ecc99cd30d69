/** The exact-match edit, pure: the file tool applies it, and the journal records its result before it happens. */
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
