import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as Lru from "../../src/tools/Lru.js"

/** The reference: a list, most recently used last, trimmed from the front. */
const reference = (maxEntries: number, maxWeight: number) => {
  let list: Array<{ key: string; value: number; weight: number }> = []
  const total = () => list.reduce((sum, e) => sum + e.weight, 0)
  return {
    get: (key: string) => {
      const found = list.find((e) => e.key === key)
      if (found !== undefined) list = [...list.filter((e) => e.key !== key), found]
      return found?.value
    },
    set: (key: string, value: number, weight: number) => {
      list = list.filter((e) => e.key !== key)
      if (weight > maxWeight / 8) return
      list.push({ key, value, weight })
      while (list.length > maxEntries || total() > maxWeight) list.shift()
    },
    keys: () => list.map((e) => e.key),
    total
  }
}

describe("Lru", () => {
  it("keeps what the reference keeps, in the same order, within both bounds", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 12 }), value: fc.integer(), weight: fc.integer({ min: 0, max: 30 }) })
    )
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 8, max: 120 }), fc.array(op, { maxLength: 80 }), (maxEntries, maxWeight, ops) => {
        const lru = Lru.empty<string, number>({ maxEntries, maxWeight })
        const ref = reference(maxEntries, maxWeight)
        for (const o of ops) {
          const key = `k${o.key}`
          if (o.kind === "get") expect(Lru.get(lru, key)).toBe(ref.get(key))
          else {
            Lru.set(lru, key, o.value, o.weight)
            ref.set(key, o.value, o.weight)
          }
          expect([...lru.map.keys()]).toEqual(ref.keys())
          expect(lru.weight).toBe(ref.total())
          expect(lru.map.size).toBeLessThanOrEqual(maxEntries)
          expect(lru.weight).toBeLessThanOrEqual(maxWeight)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("a value heavier than an eighth of the budget is not kept, and drops what it replaces", () => {
    const lru = Lru.empty<string, string>({ maxEntries: 10, maxWeight: 80 })
    Lru.set(lru, "a", "small", 10)
    Lru.set(lru, "a", "big", 11)
    expect(Lru.get(lru, "a")).toBeUndefined()
    expect(lru.weight).toBe(0)
  })
})
