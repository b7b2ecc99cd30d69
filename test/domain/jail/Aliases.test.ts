import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as Aliases from "../../../src/domain/jail/Aliases.js"

const p: Aliases.Protected = { paths: new Set(["/w/env/development", "/w/dotfiles/ssh"]), inodes: new Set() }

describe("Aliases.inside: a folder that holds a protected path", () => {
  it("the folder above a protected target, and the target itself, hold it", () => {
    expect(Aliases.inside(p, "/w/env")).toBe("/w/env/development")
    expect(Aliases.inside(p, "/w")).toBeDefined()
    expect(Aliases.inside(p, "/w/dotfiles/ssh")).toBe("/w/dotfiles/ssh")
  })
  it("a sibling or a folder below holds none (a name prefix is not a parent)", () => {
    expect(Aliases.inside(p, "/w/env2")).toBeUndefined()
    expect(Aliases.inside(p, "/w/en")).toBeUndefined()
    expect(Aliases.inside(p, "/w/src")).toBeUndefined()
    expect(Aliases.inside(Aliases.none, "/w")).toBeUndefined()
  })
})

describe("Aliases.byPath: reason's answer by path, made once for many paths", () => {
  const names = ["w", "env", "env2", "en", "a", "b", "ssh", "x.y"]
  const pathArb = FastCheck.array(FastCheck.constantFrom(...names), { minLength: 1, maxLength: 5 }).map((segs) => `/${segs.join("/")}`)
  it("equals reason without an identity, for protected paths in, above and beside the root", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom("/", "/w", "/w/a"), FastCheck.uniqueArray(pathArb, { maxLength: 6 }), pathArb, (root, protectedPaths, probe) => {
        const real = root === "/" ? probe : `${root}${probe}`
        const q: Aliases.Protected = { paths: new Set([...protectedPaths, ...(protectedPaths.length > 2 ? [root] : [])]), inodes: new Set() }
        expect(Aliases.byPath(q, root)(real)).toBe(Aliases.reason(q, root, real) !== undefined)
      }),
      { numRuns: 2000 }
    )
  })
  it("a protected path outside the root protects nothing under it; a name prefix is not a parent", () => {
    const q: Aliases.Protected = { paths: new Set(["/elsewhere", "/w/env"]), inodes: new Set() }
    expect(Aliases.byPath(q, "/w")("/w/env/x")).toBe(true)
    expect(Aliases.byPath(q, "/w")("/w/env2/x")).toBe(false)
    expect(Aliases.byPath(q, "/elsewhere/w")("/elsewhere/w/x")).toBe(false)
  })
})
