/**
 * The WebFetch contract on the pinned fetch: as the program composes it (`PinnedFetch.webLayer`, public addresses
 * only: the test's loopback server is refused like any private address) and as a test composes it (`PinnedFetch.get`
 * over `PinnedFetch.make({ allowPrivate: true })`, so the local server is reachable and a page's handling is checked).
 * Names resolve through a fixed table, never the network. There is no in-memory WebFetch fake.
 */
import { Effect } from "effect"
import type { Resolver } from "../../../src/adapters/net/NetGuard.js"
import * as PinnedFetch from "../../../src/adapters/net/PinnedFetch.js"
import { WebFetch } from "../../../src/ports/WebFetch.js"
import { contract } from "../../contracts/WebFetch.contract.js"

const resolve: Resolver = (host) =>
  host === "127.0.0.1" ? Promise.resolve([{ address: "127.0.0.1", family: 4 as const }]) : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`))

contract("web layer (public only)", {
  make: Effect.provide(WebFetch, PinnedFetch.webLayer({ resolve })),
  reachesLoopback: false,
  missingHost: "missing.invalid"
})

contract("pinned fetch allowing private (test composition)", {
  make: Effect.map(PinnedFetch.make({ allowPrivate: true, redirects: "return", resolve }), (f) => ({ get: (url: string, maxBytes: number) => PinnedFetch.get(f, url, maxBytes) })),
  reachesLoopback: true,
  missingHost: "missing.invalid"
})
