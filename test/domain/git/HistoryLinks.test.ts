import { describe, expect, it } from "vitest"
import * as HistoryLinks from "../../../src/domain/git/HistoryLinks.js"

const id = (c: string) => c.repeat(40)
const secret = (p: string) => p === ".env" || p.endsWith("/.env") || p === ".ssh" || p.startsWith(".ssh/")

describe("HistoryLinks", () => {
  it("finds symlinks at secret paths in raw log lines (merges included) and the index, nothing else", () => {
    const log = [
      `:000000 120000 ${id("0")} ${id("a")} A\t.env`,
      `:120000 000000 ${id("a")} ${id("0")} D\t.env`,
      `:000000 100644 ${id("0")} ${id("b")} A\tenv/development`,
      `:000000 120000 ${id("0")} ${id("c")} A\tlatest`,
      `::100644 120000 120000 ${id("d")} ${id("e")} ${id("e")} MM\tdeploy/.env`,
      `:000000 120000 ${id("0")} ${id("f")} A\t".ssh"`
    ].join("\n")
    const stage = [`120000 ${id("9")} 0\t.env`, `100644 ${id("8")} 0\tdeploy/.env`, `120000 ${id("7")} 0\tlatest`].join("\0")
    const found = HistoryLinks.links(log, stage, secret).map((l) => `${l.path} ${l.id[0]}`).sort()
    expect(found).toEqual([".env 9", ".env a", ".ssh f", "deploy/.env e"])
  })

  it("resolves a target against the link's folder, inside the repository only", () => {
    const top = "/w/repo"
    expect(HistoryLinks.target(top, ".env", "env/development")).toBe("env/development")
    expect(HistoryLinks.target(top, "deploy/.env", "../cfg/keys.txt")).toBe("cfg/keys.txt")
    expect(HistoryLinks.target(top, "deploy/.env", "./x/../y")).toBe("deploy/y")
    expect(HistoryLinks.target(top, ".env", "/w/repo/env/prod")).toBe("env/prod")
    expect(HistoryLinks.target(top, ".env", "/etc/passwd")).toBeUndefined()
    expect(HistoryLinks.target(top, ".env", "../../outside")).toBeUndefined()
    expect(HistoryLinks.target(top, ".env", ".")).toBeUndefined()
    expect(HistoryLinks.target(top, ".env", "")).toBeUndefined()
  })

  it("widens a predicate to each target and what is under it, not to look-alike prefixes", () => {
    const wide = HistoryLinks.widen(secret, new Set(["env/development", "dotfiles/ssh"]))
    expect(["env/development", "dotfiles/ssh/config", ".env"].every(wide)).toBe(true)
    expect(["env/development2", "dotfiles/sshx", "env"].some(wide)).toBe(false)
    expect(HistoryLinks.widen(secret, new Set())).toBe(secret)
  })
})
