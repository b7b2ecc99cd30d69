/**
 * A bounded memo of values derived from others, least recently used out first, bounded by entries and by weight.
 * It is a Map changed in place: the owner keeps it in a Ref and calls these only inside that Ref's `modify` or
 * `update`, so each lookup or insertion is one atomic step (the pattern of the `mcp serve` replay table).
 */

export interface Lru<K, V> {
  readonly map: Map<K, { readonly value: V; readonly weight: number }>
  weight: number
  readonly maxEntries: number
  readonly maxWeight: number
}

export const empty = <K, V>(limits: { readonly maxEntries: number; readonly maxWeight: number }): Lru<K, V> => ({
  map: new Map(),
  weight: 0,
  maxEntries: limits.maxEntries,
  maxWeight: limits.maxWeight
})

/** The value kept for `key`, which becomes the most recently used. */
export const get = <K, V>(lru: Lru<K, V>, key: K): V | undefined => {
  const found = lru.map.get(key)
  if (found === undefined) return undefined
  lru.map.delete(key)
  lru.map.set(key, found)
  return found.value
}

/** Keeps `value` for `key` (replacing what was kept), then drops the least recently used past the bounds. A value
 * heavier than an eighth of the budget is not kept at all: it would push out many others. */
export const set = <K, V>(lru: Lru<K, V>, key: K, value: V, weight: number): void => {
  const old = lru.map.get(key)
  if (old !== undefined) {
    lru.map.delete(key)
    lru.weight -= old.weight
  }
  if (weight > lru.maxWeight / 8) return
  lru.map.set(key, { value, weight })
  lru.weight += weight
  for (const [k, e] of lru.map) {
    if (lru.weight <= lru.maxWeight && lru.map.size <= lru.maxEntries) break
    lru.map.delete(k)
    lru.weight -= e.weight
  }
}
