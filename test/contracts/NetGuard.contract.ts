/**
 * One suite for every NetGuard adapter: private, loopback, link-local and cloud-metadata addresses are denied,
 * public ones allowed, IPv4 inside IPv6 judged by the IPv4 address, and a name that does not resolve is denied.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { NetGuardShape } from "../../src/ports/NetGuard.js"

export interface Fixture {
  readonly make: Effect.Effect<NetGuardShape>
  /** A name this guard resolves to a loopback address. */
  readonly loopbackName: string
  /** A name this guard cannot resolve. */
  readonly missingName: string
  /** A name this guard resolves to public addresses only (omitted where that needs the network). */
  readonly publicName?: string
}

const denied = [
  "http://127.0.0.1/", "http://127.1/", "http://2130706433/", "http://0x7f.0.0.1/", "http://0.0.0.0/",
  "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/", "http://100.64.0.1/",
  "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://[::1]/", "http://[::]/",
  "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:a00:1]/",
  "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://224.0.0.1/", "http://255.255.255.255/"
]
const publicUrls = ["http://1.1.1.1/", "https://8.8.8.8:8443/x", "http://[2606:4700:4700::1111]/"]

export const contract = (name: string, fixture: Fixture) =>
  describe(`NetGuard contract: ${name}`, () => {
    it.effect("private, loopback, link-local, metadata and embedded-IPv4 addresses are denied", () =>
      Effect.gen(function* () {
        const guard = yield* fixture.make
        for (const url of denied) {
          const { decision } = yield* guard.check(url)
          assert.strictEqual(decision.decision, "deny", url)
        }
      }))

    it.effect("public addresses are allowed and reported", () =>
      Effect.gen(function* () {
        const guard = yield* fixture.make
        for (const url of publicUrls) {
          const { addresses, decision } = yield* guard.check(url)
          assert.strictEqual(decision.decision, "allow", url)
          assert.strictEqual(addresses.length, 1)
        }
      }))

    it.effect("a name is judged by what it resolves to; unresolvable denies (fail closed)", () =>
      Effect.gen(function* () {
        const guard = yield* fixture.make
        const loop = yield* guard.check(`http://${fixture.loopbackName}:8080/`)
        assert.strictEqual(loop.decision.decision, "deny")
        assert.isTrue(loop.addresses.length > 0)
        const missing = yield* guard.check(`http://${fixture.missingName}/`)
        assert.strictEqual(missing.decision.decision, "deny")
        assert.deepStrictEqual(missing.addresses, [])
        if (fixture.publicName !== undefined) {
          assert.strictEqual((yield* guard.check(`https://${fixture.publicName}/`)).decision.decision, "allow")
        }
      }))

    it.effect("allowPrivate lets a configured private server through; bad URLs and schemes are denied", () =>
      Effect.gen(function* () {
        const guard = yield* fixture.make
        assert.strictEqual((yield* guard.check("http://127.0.0.1:9/", { allowPrivate: true })).decision.decision, "allow")
        for (const url of ["file:///etc/passwd", "gopher://1.1.1.1/", "not a url", "ftp://8.8.8.8/"]) {
          const { addresses, decision } = yield* guard.check(url)
          assert.strictEqual(decision.decision, "deny", url)
          assert.deepStrictEqual(addresses, [])
        }
      }))
  })
