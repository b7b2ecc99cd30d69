/**
 * Values derived from long texts that are sent again and again (the escaped JSON of a listing `read_file` hands out
 * again), found without hashing the text: V8 hashes a string of up to 16 K chars in full on its first lookup in a
 * Map (~13 µs for 9 K chars), and gives every longer one a hash of its length alone. Here a text is found by its
 * length, then by comparison, so looking up a text that is not there costs one small-integer lookup.
 *
 * Only admitted texts are kept (the owner admits the ones it knows it will send again), the oldest admitted first
 * out, within an entry and a size bound. Changed in place: the owner calls these from synchronous code only.
 */

interface Slot<V> {
  readonly text: string
  value: V | undefined
}

export interface TextMemo<V> {
  readonly byLength: Map<number, Array<Slot<V>>>
  readonly order: Array<Slot<V>>
  chars: number
  readonly maxEntries: number
  readonly maxChars: number
}

export const empty = <V>(limits: { readonly maxEntries: number; readonly maxChars: number }): TextMemo<V> => ({
  byLength: new Map(),
  order: [],
  chars: 0,
  maxEntries: limits.maxEntries,
  maxChars: limits.maxChars
})

const find = <V>(memo: TextMemo<V>, text: string): Slot<V> | undefined => {
  const bucket = memo.byLength.get(text.length)
  if (bucket === undefined) return undefined
  for (const slot of bucket) if (slot.text === text) return slot
  return undefined
}

const drop = <V>(memo: TextMemo<V>, slot: Slot<V>): void => {
  const bucket = memo.byLength.get(slot.text.length)
  const rest = bucket === undefined ? [] : bucket.filter((s) => s !== slot)
  if (rest.length === 0) memo.byLength.delete(slot.text.length)
  else memo.byLength.set(slot.text.length, rest)
  memo.chars -= slot.text.length
}

/** Keeps `text` (without a value yet), dropping the oldest admitted past the bounds. A text over an eighth of the size bound is not kept. */
export const admit = <V>(memo: TextMemo<V>, text: string): void => {
  if (text.length > memo.maxChars / 8 || find(memo, text) !== undefined) return
  const slot: Slot<V> = { text, value: undefined }
  memo.order.push(slot)
  memo.byLength.set(text.length, [...(memo.byLength.get(text.length) ?? []), slot])
  memo.chars += text.length
  while (memo.order.length > memo.maxEntries || memo.chars > memo.maxChars) {
    const oldest = memo.order.shift()
    if (oldest === undefined) break
    drop(memo, oldest)
  }
}

/** The value for an admitted text, derived by `make` the first time; for any other text, `make`'s value, not kept. */
export const derive = <V>(memo: TextMemo<V>, text: string, make: (text: string) => V): V => {
  const slot = find(memo, text)
  if (slot === undefined) return make(text)
  if (slot.value === undefined) slot.value = make(text)
  return slot.value
}

export const size = (memo: TextMemo<unknown>): number => memo.order.length
