import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as NetGuard from "../../../src/adapters/net/NetGuard.js"

const denied = [
  ["127.0.0.1", "loopback"], ["127.255.255.254", "loopback"], ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"],
  ["192.168.1.1", "private"], ["169.254.169.254", "linkLocal"], ["169.254.0.1", "linkLocal"], ["100.64.0.1", "carrierGradeNat"],
  ["100.127.255.254", "carrierGradeNat"], ["0.0.0.0", "unspecified"], ["0.1.2.3", "unspecified"], ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"], ["255.255.255.255", "broadcast"], ["240.0.0.1", "reserved"], ["198.18.0.1", "reserved"],
  ["198.19.255.254", "reserved"], ["192.0.0.8", "reserved"], ["192.0.2.1", "reserved"], ["198.51.100.7", "reserved"], ["203.0.113.9", "reserved"],
  ["::1", "loopback"], ["::", "unspecified"], ["fc00::1", "uniqueLocal"], ["fd12:3456::1", "uniqueLocal"], ["fe80::1", "linkLocal"],
  ["febf::1", "linkLocal"], ["ff02::1", "multicast"], ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"],
  ["::ffff:169.254.169.254", "linkLocal"], ["::ffff:10.0.0.1", "private"], ["::127.0.0.1", "embedded"], ["::10.0.0.1", "embedded"], ["::7f00:1", "IPv4-compatible"], ["::a00:1", "IPv4-compatible"], ["::a9fe:a9fe", "IPv4-compatible"],
  ["64:ff9b::127.0.0.1", "NAT64"], ["64:ff9b::a9fe:a9fe", "NAT64"], ["2002:7f00:1::", "6to4"], ["2002:a9fe:a9fe::1", "6to4"],
  ["2001:db8::1", "reserved"], ["2001::1", "teredo"], ["not-an-ip", "not an IP"]
] as const

const allowed = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]

describe("NetGuard.classify", () => {
  for (const [address, why] of denied) {
    it(`denies ${address} (${why})`, () => {
      const v = NetGuard.classify(address)
      assert.isFalse(v.ok)
      if (!v.ok) assert.include(v.range, why)
    })
  }
  for (const address of allowed) {
    it(`allows ${address}`, () => assert.isTrue(NetGuard.classify(address).ok))
  }
})

const noDns: NetGuard.Resolver = () => Promise.reject(new Error("getaddrinfo ENOTFOUND"))
const fixed = (answers: Readonly<Record<string, ReadonlyArray<string>>>): NetGuard.Resolver => (host) =>
  Promise.resolve((answers[host] ?? []).map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) })))

describe("NetGuard.check", () => {
  const cases: ReadonlyArray<readonly [string, "allow" | "deny", string]> = [
    ["http://127.0.0.1/", "deny", "net.blocked-address"],
    ["http://[::ffff:127.0.0.1]/", "deny", "net.blocked-address"],
    ["http://[::1]:8080/x", "deny", "net.blocked-address"],
    ["http://2130706433/", "deny", "net.blocked-address"],
    ["http://0x7f000001/", "deny", "net.blocked-address"],
    ["http://0177.0.0.1/", "deny", "net.blocked-address"],
    ["http://127.1/", "deny", "net.blocked-address"],
    ["http://0x7f.1/", "deny", "net.blocked-address"],
    ["http://017700000001/", "deny", "net.blocked-address"],
    ["http://169.254.169.254/latest/meta-data/", "deny", "net.blocked-address"],
    ["http://0/", "deny", "net.blocked-address"],
    ["http://[fe80::1]/", "deny", "net.blocked-address"],
    ["http://[64:ff9b::7f00:1]/", "deny", "net.blocked-address"],
    ["file:///etc/passwd", "deny", "net.scheme"],
    ["gopher://example.com/", "deny", "net.scheme"],
    ["ftp://93.184.215.14/", "deny", "net.scheme"],
    ["not a url", "deny", "net.url"],
    ["https://93.184.215.14/", "allow", "net.public"],
    ["https://[2606:4700:4700::1111]/", "allow", "net.public"],
    ["http://nowhere.invalid/", "deny", "net.dns"]
  ]
  for (const [url, expect, rule] of cases) {
    it.effect(`${url} → ${expect} (${rule})`, () =>
      Effect.gen(function* () {
        const r = yield* NetGuard.checkWith(noDns)(url, false)
        assert.strictEqual(r.decision.decision, expect)
        assert.strictEqual(r.decision.stage, "guard")
        assert.strictEqual(r.decision.rule, rule)
      })
    )
  }

  it.effect("judges every resolved address: one private address denies the name", () =>
    Effect.gen(function* () {
      const check = NetGuard.checkWith(fixed({ "mixed.test": ["93.184.215.14", "10.0.0.1"], "pub.test": ["93.184.215.14", "2606:4700:4700::1111"], "localhost": ["127.0.0.1", "::1"] }))
      assert.strictEqual((yield* check("https://mixed.test/", false)).decision.decision, "deny")
      assert.strictEqual((yield* check("https://pub.test/", false)).decision.decision, "allow")
      assert.strictEqual((yield* check("http://localhost:3000/", false)).decision.decision, "deny")
      assert.strictEqual((yield* check("http://localhost:3000/", true)).decision.rule, "net.private-allowed")
      assert.strictEqual((yield* check("http://empty.test/", false)).decision.rule, "net.dns")
    })
  )

  it.effect("a resolver that never answers denies after the timeout (fail closed)", () =>
    Effect.gen(function* () {
      const slow = NetGuard.nodeResolver(50)
      // A name in the .invalid TLD never resolves; with no network the lookup fails or times out: either way deny.
      const r = yield* NetGuard.checkWith(slow)("http://hangs.invalid/", false)
      assert.strictEqual(r.decision.decision, "deny")
      const hang: NetGuard.Resolver = () => new Promise(() => {})
      const timed = yield* NetGuard.checkWith((h) => Promise.race([hang(h), new Promise<never>((_, rej) => setTimeout(() => rej(new Error("timeout")), 20))]))("http://x.test/", false)
      assert.strictEqual(timed.decision.rule, "net.dns")
    })
  )

  it("normalises numeric hosts with the WHATWG parser", () => {
    const t = NetGuard.target("http://2130706433/")
    assert.isTrue(Either.isRight(t) && t.right._tag === "Literal" && t.right.address.address === "127.0.0.1")
  })
})
