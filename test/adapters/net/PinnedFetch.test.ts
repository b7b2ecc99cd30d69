import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Resolver } from "../../../src/adapters/net/NetGuard.js"
import * as PinnedFetch from "../../../src/adapters/net/PinnedFetch.js"

interface Local {
  readonly port: number
  readonly hits: Array<string>
  readonly close: () => Promise<void>
}

const local = (handler: http.RequestListener): Promise<Local> =>
  new Promise((resolve) => {
    const hits: Array<string> = []
    const server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url} host=${req.headers.host}`)
      handler(req, res)
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        hits,
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()) })
      })
    )
  })

const withServer = <A, E, R>(handler: http.RequestListener, body: (s: Local) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(() => local(handler)), body, (s) => Effect.promise(() => s.close()))

const fetchText = (f: PinnedFetch.FetchLike, url: string) =>
  Effect.promise(() => f(url).then(async (r) => ({ ok: true as const, status: r.status, text: await r.text() })).catch((e: unknown) => ({ ok: false as const, error: e instanceof Error ? `${e.message} ${e.cause instanceof Error ? e.cause.message : ""}` : String(e) })))

describe("PinnedFetch", () => {
  it.scoped("DNS rebinding: the name is resolved once and the connection goes to the checked address", () =>
    withServer((_, res) => res.end("private data"), (s) =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        // Answers public first, then private: a check-then-connect design would connect to 127.0.0.1.
        const rebinding: Resolver = (host) => {
          asked.push(host)
          return Promise.resolve([{ address: asked.length === 1 ? "93.184.215.14" : "127.0.0.1", family: 4 as const }])
        }
        const f = yield* PinnedFetch.make({ resolve: rebinding, connectTimeoutMs: 1500 })
        const r = yield* fetchText(f, `http://rebind.test:${s.port}/secret`)
        assert.isFalse(r.ok)
        assert.deepStrictEqual(asked, ["rebind.test"])
        assert.deepStrictEqual(s.hits, [], "the private server was never reached")
        if (!r.ok) assert.match(r.error, /93\.184\.215\.14|fetch failed|timeout|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED/i)
        // The opposite order is denied at lookup, before any connection.
        const privateFirst: Resolver = () => Promise.resolve([{ address: "127.0.0.1", family: 4 as const }])
        const g = yield* PinnedFetch.make({ resolve: privateFirst })
        const denied = yield* fetchText(g, `http://rebind.test:${s.port}/secret`)
        assert.isFalse(denied.ok)
        if (!denied.ok) assert.match(denied.error, /loopback/)
        assert.deepStrictEqual(s.hits, [])
      })
    )
  )

  it.scoped("IP literals are judged before dispatch; allowPrivate opts one client in", () =>
    withServer((_, res) => res.end("hello"), (s) =>
      Effect.gen(function* () {
        const strict = yield* PinnedFetch.make()
        for (const url of [`http://127.0.0.1:${s.port}/`, `http://[::ffff:127.0.0.1]:${s.port}/`, `http://2130706433:${s.port}/`, `http://127.1:${s.port}/`]) {
          const r = yield* fetchText(strict, url)
          assert.isFalse(r.ok, url)
        }
        assert.deepStrictEqual(s.hits, [])
        const file = yield* fetchText(strict, "file:///etc/passwd")
        assert.isFalse(file.ok)
        const opted = yield* PinnedFetch.make({ allowPrivate: true })
        const ok = yield* fetchText(opted, `http://127.0.0.1:${s.port}/`)
        assert.deepStrictEqual(ok, { ok: true, status: 200, text: "hello" })
        // A name resolved to loopback with the opt-in connects to that same checked address.
        const named = yield* PinnedFetch.make({ allowPrivate: true, resolve: () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]) })
        assert.deepStrictEqual(yield* fetchText(named, `http://lokal.test:${s.port}/`), { ok: true, status: 200, text: "hello" })
        assert.include(s.hits[1] ?? "", "host=lokal.test")
      })
    )
  )

  it.scoped("redirects are not followed; bodies are capped", () =>
    withServer((req, res) => {
      if (req.url === "/r") return void res.writeHead(302, { location: "http://169.254.169.254/" }).end()
      res.end("z".repeat(5000))
    }, (s) =>
      Effect.gen(function* () {
        const f = yield* PinnedFetch.make({ allowPrivate: true, maxBodyBytes: 1000 })
        const r = yield* fetchText(f, `http://127.0.0.1:${s.port}/r`)
        assert.isFalse(r.ok)
        if (!r.ok) assert.match(r.error, /redirects are not followed/)
        const big = yield* fetchText(f, `http://127.0.0.1:${s.port}/big`)
        assert.isFalse(big.ok)
        if (!big.ok) assert.match(big.error, /exceeds 1000 bytes/)
      })
    )
  )

  it.scoped("web GET re-checks every redirect hop and stops after five", () =>
    withServer((req, res) => {
      const n = Number(req.url?.slice(1) ?? "0")
      if (req.url === "/to-metadata") return void res.writeHead(302, { location: "http://169.254.169.254/latest" }).end()
      if (req.url === "/page") return void res.writeHead(200, { "content-type": "text/html" }).end("<html><title>T</title><body><p>Hi &amp; bye</p><script>x()</script></body></html>")
      if (n < 10) return void res.writeHead(302, { location: `/${n + 1}` }).end()
      res.end("end")
    }, (s) =>
      Effect.gen(function* () {
        const f = yield* PinnedFetch.make({ allowPrivate: true, redirects: "return" })
        const loop = yield* Effect.either(PinnedFetch.get(f, `http://127.0.0.1:${s.port}/0`, 1000))
        assert.isTrue(loop._tag === "Left" && loop.left.reason.includes("more than 5 redirects"))
        const strict = yield* PinnedFetch.make({ redirects: "return", resolve: () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]) })
        const hop = yield* Effect.either(PinnedFetch.get(strict, `http://127.0.0.1:${s.port}/to-metadata`, 1000))
        assert.isTrue(hop._tag === "Left")
        const page = yield* PinnedFetch.get(f, `http://127.0.0.1:${s.port}/page`, 30)
        assert.isTrue(page.truncated)
        assert.strictEqual(page.bytes, 30)
      })
    )
  )
})
