/**
 * One suite for every WebFetch adapter: what web_fetch relies on. A URL that is not http(s), not a URL at all, names
 * a host that does not resolve, or (unless the adapter is a test composition that allows private addresses) leads to
 * a private or loopback address is refused with a typed ToolFailed, never a defect. Where the adapter may reach the test's server (`served`), a page comes back with its
 * status, type and text, a body over the cap comes truncated to it, a binary body is flagged and not decoded, and
 * redirects are followed with the final URL reported.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, type Scope } from "effect"
import type { WebFetchShape } from "../../src/ports/WebFetch.js"

export interface Fixture {
  readonly make: Effect.Effect<WebFetchShape, never, Scope.Scope>
  /** Whether this adapter may reach a server on 127.0.0.1 (a test composition): else loopback is refused too. */
  readonly reachesLoopback: boolean
  /** A host name this adapter cannot resolve. */
  readonly missingHost: string
}

const server = Effect.acquireRelease(
  Effect.async<http.Server>((resume) => {
    const s = http.createServer((req, res) => {
      if (req.url === "/page") return res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("héllo page\n")
      if (req.url === "/big") return res.writeHead(200, { "content-type": "text/plain" }).end("z".repeat(100_000))
      if (req.url === "/bin") return res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from([0, 1, 2, 3, 255]))
      if (req.url === "/hop") return res.writeHead(302, { location: "/page" }).end()
      if (req.url === "/private") return res.writeHead(302, { location: "http://10.255.255.1/" }).end()
      res.writeHead(404, { "content-type": "text/plain" }).end("no")
    })
    s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
  }),
  (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void)))
)
const base = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`

const refusedTyped = (exit: Exit.Exit<unknown, { readonly _tag: string }>, what: string) => {
  assert.isTrue(Exit.isFailure(exit), `${what}: ${String(exit)}`)
  if (Exit.isFailure(exit)) {
    assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
    const error = Cause.failureOption(exit.cause)
    assert.strictEqual(error._tag === "Some" ? error.value._tag : "none", "ToolFailed", what)
  }
}

export const contract = (name: string, fixture: Fixture) =>
  describe(`WebFetch contract: ${name}`, () => {
    it.scopedLive("bad URLs, unresolvable hosts and private addresses are a typed ToolFailed, never a defect", () =>
      Effect.gen(function* () {
        const web = yield* fixture.make
        const s = yield* server
        const urls = ["not a url", "file:///etc/passwd", "ftp://example.com/", `http://${fixture.missingHost}/`]
        // An adapter that may reach loopback is a test composition that allows private addresses: none refused then.
        const privateUrls = ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", `${base(s)}/page`, `${base(s)}/private`]
        for (const url of [...urls, ...(fixture.reachesLoopback ? [] : privateUrls)]) {
          refusedTyped(yield* Effect.exit(web.get(url, 10_000)), url)
        }
      }))

    it.scopedLive.skipIf(!fixture.reachesLoopback)("a page comes with status, type and text; the cap truncates; binary is flagged; redirects are followed", () =>
      Effect.gen(function* () {
        const web = yield* fixture.make
        const s = yield* server
        const page = yield* web.get(`${base(s)}/page`, 10_000)
        assert.deepStrictEqual([page.status, page.text, page.binary, page.truncated], [200, "héllo page\n", false, false])
        assert.include(page.contentType, "text/plain")
        const big = yield* web.get(`${base(s)}/big`, 1000)
        assert.isTrue(big.truncated)
        assert.isAtMost(big.text.length, 1000)
        const bin = yield* web.get(`${base(s)}/bin`, 1000)
        assert.deepStrictEqual([bin.binary, bin.text], [true, ""])
        const hop = yield* web.get(`${base(s)}/hop`, 1000)
        assert.deepStrictEqual([hop.url, hop.text], [`${base(s)}/page`, "héllo page\n"])
        const missing = yield* web.get(`${base(s)}/absent`, 1000)
        assert.strictEqual(missing.status, 404)
      }))
  })
