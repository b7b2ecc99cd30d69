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
