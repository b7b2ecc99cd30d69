/**
 * The linear glob matcher answers as picomatch (`dot`, `posix`) does on every glob of its subset, and in time linear
 * in the name where picomatch's regex backtracks for ever (issue 40: `*a*a*…b` froze mcp serve).
 */
import { FastCheck } from "effect"
import picomatch from "picomatch"
import { describe, expect, it } from "vitest"
import * as LinearGlob from "../../../src/domain/files/LinearGlob.js"

const chars = ["a", "b", "c", "A", ".", "-", "_", "x", "é"]
const segmentPart = FastCheck.oneof(
  { weight: 5, arbitrary: FastCheck.constantFrom(...chars) },
  { weight: 3, arbitrary: FastCheck.constant("*") },
  { weight: 2, arbitrary: FastCheck.constant("?") },
  { weight: 2, arbitrary: FastCheck.constantFrom("[a-c]", "[!a]", "[^b.]", "[abc]", "[!a-b]", "[A-Z]") },
  { weight: 1, arbitrary: FastCheck.constantFrom("\\*", "\\?", "\\[") }
)
const globSegment = FastCheck.oneof(
  { weight: 6, arbitrary: FastCheck.array(segmentPart, { minLength: 1, maxLength: 6 }).map((p) => p.join("")) },
  { weight: 1, arbitrary: FastCheck.constant("**") }
)
const glob = FastCheck.array(globSegment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"))
const name = FastCheck.array(FastCheck.constantFrom(...chars, "*", "?", "["), { minLength: 1, maxLength: 8 }).map((c) => c.join(""))
const path = FastCheck.array(name.filter((n) => n !== "." && n !== ".."), { minLength: 1, maxLength: 4 }).map((s) => s.join("/"))

const esc = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")
/** The shell's meaning (globstar, dotglob) as a regex, for small inputs: the reference. */
const shellRegex = (g: string, nocase: boolean): RegExp => {
  const segs = g.split("/").reduce<Array<string>>((out, s) => (s === "**" && out[out.length - 1] === "**" ? out : [...out, s]), [])
  let re = ""
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1
    if (seg === "**") {
      re += last ? (i === 0 ? "(?:[^/]+(?:/[^/]+)*)?" : "(?:/[^/]+)*") : "(?:[^/]+/)*"
      return
    }
    for (let k = 0; k < seg.length; k++) {
      const c = seg[k]!
      if (c === "\\") re += esc(seg[++k]!)
      else if (c === "*") re += "[^/]*"
      else if (c === "?") re += "[^/]"
      else if (c === "[") {
        const end = seg.indexOf("]", k + 2)
        const body = seg.slice(k + 1, end)
        const neg = body[0] === "!" || body[0] === "^"
        const inner = (neg ? body.slice(1) : body).replace(/[\\\]^]/g, "\\$&")
        re += neg ? `[^${inner}/]` : `[${inner}]`
        k = end
      } else re += esc(c)
    }
    if (!last && segs[i + 1] !== "**") re += "/"
    else if (!last && segs[i + 1] === "**" && i + 1 < segs.length - 1) re += "/"
  })
  return new RegExp(`^${re}$`, nocase ? "i" : "")
}

describe("LinearGlob", () => {
  it("matches as the shell does (globstar, dotglob) on its subset", () => {
    let compared = 0
    FastCheck.assert(
      FastCheck.property(glob, FastCheck.array(path, { minLength: 1, maxLength: 12 }), FastCheck.boolean(), (g, paths, nocase) => {
        const parsed = LinearGlob.parse(g)
        if (parsed === undefined) return
        const re = shellRegex(g, nocase)
        for (const p of paths) {
          compared++
          expect(LinearGlob.matches(parsed, p, nocase), `${g} on ${p} (nocase ${nocase})`).toBe(re.test(p))
        }
      }),
      { numRuns: 3000 }
    )
    expect(compared).toBeGreaterThan(10_000)
  })

  it("agrees with picomatch (dot, posix) on the star-free and single-star globs it is not used for", () => {
    FastCheck.assert(
      FastCheck.property(glob, FastCheck.array(path, { minLength: 1, maxLength: 8 }), (g, paths) => {
        const parsed = LinearGlob.parse(g)
        if (parsed === undefined || LinearGlob.risky(parsed) || g.includes("**") || /\.\*/.test(g)) return
        const re = picomatch.makeRe(g, { dot: true, posix: true })
        for (const p of paths) expect(LinearGlob.matches(parsed, p, false), `${g} on ${p}`).toBe(re.test(p))
      }),
      { numRuns: 2000 }
    )
  })

  it("leaves braces, extglobs, POSIX classes and negated globs to picomatch", () => {
    for (const g of ["{a,b}", "*.{ts,js}", "@(a|b)", "!(x)", "+(a)", "[[:alpha:]]", "!a", "a/./b", "a//b", "[]a]", "[\\]]"]) {
      expect(LinearGlob.parse(g), g).toBeUndefined()
    }
  })

  it("answers a glob that backtracks for ever in picomatch at once", () => {
    const g = `${"*a".repeat(16)}*b`
    const parsed = LinearGlob.parse(g)
    expect(parsed).toBeDefined()
    const long = "a".repeat(4000)
    // Each is linear in the name times the glob; picomatch's regex for the same does not finish in a minute.
    expect(LinearGlob.matches(parsed!, long, false)).toBe(false)
    expect(LinearGlob.matches(parsed!, `${long}b`, false)).toBe(true)
    expect(LinearGlob.matches(LinearGlob.parse(`**/${g}/**/${g}`)!, `x/${long}/${"y/".repeat(200)}${long}`, false)).toBe(false)
  })
})
