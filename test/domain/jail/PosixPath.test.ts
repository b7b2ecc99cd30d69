/**
 * PosixPath answers canonical paths with string operations; this pins every function to the plain segment
 * arithmetic on arbitrary paths made of tricky pieces (`.`, `..`, empty segments, dots inside names).
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as P from "../../../src/domain/jail/PosixPath.js"

const segments = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s !== "" && s !== ".")
const reference = {
  resolve: (base: string, path: string): string => {
    const start = path.startsWith("/") ? [] : [...segments(base)]
    for (const seg of segments(path)) {
      if (seg === "..") start.pop()
      else start.push(seg)
    }
    return "/" + start.join("/")
  },
  isInside: (root: string, path: string): boolean => {
    const r = segments(root)
    const p = segments(path)
    if (p.length < r.length) return false
    return r.every((seg, i) => p[i] === seg)
  },
  relative: (root: string, path: string): string => segments(path).slice(segments(root).length).join("/"),
  basename: (path: string): string => {
    const segs = segments(path)
    return segs[segs.length - 1] ?? ""
  }
}

const piece = FastCheck.constantFrom("", ".", "..", "a", "ab", "a.b", ".a", "..a", "a..", "...", "work", "ws", "ws2", "é", " ")
const path = FastCheck.tuple(FastCheck.boolean(), FastCheck.array(piece, { maxLength: 6 }), FastCheck.boolean()).map(
  ([absolute, parts, trailing]) => (absolute ? "/" : "") + parts.join("/") + (trailing ? "/" : "")
)
const prefixed = FastCheck.tuple(path, path).map(([a, b]) => [a, a + "/" + b] as const)

describe("PosixPath", () => {
  it("agrees with the segment arithmetic", () => {
    FastCheck.assert(
      FastCheck.property(path, path, (a, b) => {
        expect(P.resolve(a, b)).toBe(reference.resolve(a, b))
        expect(P.isInside(a, b)).toBe(reference.isInside(a, b))
        if (reference.isInside(a, b)) expect(P.relative(a, b)).toBe(reference.relative(a, b))
        expect(P.basename(a)).toBe(reference.basename(a))
      }),
      { numRuns: 20_000 }
    )
    FastCheck.assert(
      FastCheck.property(prefixed, ([a, b]) => {
        expect(P.isInside(a, b)).toBe(reference.isInside(a, b))
        expect(P.relative(a, b)).toBe(reference.relative(a, b))
      }),
      { numRuns: 5_000 }
    )
    for (const [a, b] of [["/work/ws", "/work/ws"], ["/work/ws", "/work/ws2"], ["/work/ws", "/work/ws/x"], ["/", "/x"], ["/", "/"], ["/a/..", "/a/../b"]]) {
      expect(P.isInside(a ?? "", b ?? "")).toBe(reference.isInside(a ?? "", b ?? ""))
      expect(P.relative(a ?? "", b ?? "")).toBe(reference.relative(a ?? "", b ?? ""))
      expect(P.resolve(a ?? "", b ?? "")).toBe(reference.resolve(a ?? "", b ?? ""))
    }
  })
})
