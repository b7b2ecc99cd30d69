import { describe, expect, it } from "vitest"
import * as Jail from "../../../src/domain/jail/Jail.js"
import * as ToolchainCaches from "../../../src/domain/sandbox/ToolchainCaches.js"

const home = "/home/u"
const facts = (env: Record<string, string>, goModCache?: string): ToolchainCaches.Facts => ({ home, env, goModCache })

describe("ToolchainCaches", () => {
  it("finds Go's module cache from go env, then GOMODCACHE, then GOPATH's first entry, then ~/go", () => {
    expect(ToolchainCaches.goModCache(facts({ GOMODCACHE: "/x/mod" }, "/y/mod\n"))).toBe("/y/mod")
    expect(ToolchainCaches.goModCache(facts({ GOMODCACHE: "/x/mod", GOPATH: "/g" }))).toBe("/x/mod")
    expect(ToolchainCaches.goModCache(facts({ GOPATH: ":/g1:/g2" }))).toBe("/g1/pkg/mod")
    expect(ToolchainCaches.goModCache(facts({}))).toBe("/home/u/go/pkg/mod")
    // A relative value is not a place: go itself refuses it.
    expect(ToolchainCaches.goModCache(facts({ GOMODCACHE: "mod" }))).toBe("/home/u/go/pkg/mod")
  })

  it("names cache folders, never the folders that hold credentials beside them", () => {
    const shown = ToolchainCaches.folders(facts({}))
    expect(shown).toEqual(expect.arrayContaining(["/home/u/go/pkg/mod", "/home/u/.cargo/registry", "/home/u/.cargo/git", "/home/u/.m2/repository", "/home/u/.gradle/caches", "/home/u/.rustup/toolchains"]))
    for (const f of shown) {
      expect(Jail.sensitiveReason(f), f).toBeUndefined()
      for (const c of ToolchainCaches.credentialPlaces) expect(`/home/u/${c}`.startsWith(`${f}/`), `${f} holds ${c}`).toBe(false)
    }
    expect(shown).not.toContain("/home/u/.cargo")
    expect(shown).not.toContain("/home/u/.m2")
  })

  it("drops a cache the environment puts at the root, the home, above it, around or inside a credential place", () => {
    for (const bad of ["/", "/home", "/home/u", "/home/u/.ssh/mod", "/home/u/.config", "/home/u/.config/go/mod", "/home/u/.docker"]) {
      expect(ToolchainCaches.folders(facts({ GOMODCACHE: bad })), bad).not.toContain(bad)
    }
    // CARGO_HOME's own credentials: its registry is shown, CARGO_HOME itself never.
    const cargo = ToolchainCaches.folders(facts({ CARGO_HOME: "/opt/cargo" }))
    expect(cargo).toContain("/opt/cargo/registry")
    expect(ToolchainCaches.safe("/opt/cargo", facts({ CARGO_HOME: "/opt/cargo" }))).toBe(false)
  })

  it("tells the server where the module cache is, and turns the proxy off, only when the cache is shown", () => {
    const f = facts({}, "/cache/mod")
    expect(ToolchainCaches.environment(f, ["/cache/mod"])).toEqual({ GOMODCACHE: "/cache/mod", GOPROXY: "off" })
    expect(ToolchainCaches.environment(f, [])).toEqual({})
  })
})
