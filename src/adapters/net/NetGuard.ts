/**
 * SSRF guard: address classification with ipaddr.js (only its plain `unicast` range passes; IPv4 embedded in
 * IPv6 is judged by the embedded address), URL targets after WHATWG normalisation, and the Node DNS resolver.
 * PinnedFetch uses the same functions and resolver at connect time, so the verdict and the connection agree.
 */
import * as dns from "node:dns"
import { Effect, Either, Layer } from "effect"
import ipaddr from "ipaddr.js"
import * as D from "../../domain/core/Decision.js"
import { type NetCheck, NetGuard, type ResolvedAddress } from "../../ports/NetGuard.js"

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly range: string }

const pass: Verdict = { ok: true }
const block = (range: string): Verdict => ({ ok: false, range })

const v4From = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])

const judgeV4 = (ip: ipaddr.IPv4): Verdict => {
  const range = ip.range()
  return range === "unicast" ? pass : block(`IPv4 ${range}`)
}

/** The IPv4 address an IPv6 address carries: mapped, translated, NAT64 /96, 6to4, IPv4-compatible ::/96. */
const embedded = (ip: ipaddr.IPv6): { readonly via: string; readonly v4: ipaddr.IPv4 } | undefined => {
  const p = ip.parts
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = p
  const range = ip.range()
  if (range === "ipv4Mapped" || range === "rfc6145") return { via: range, v4: v4From(g, h) }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return { via: "NAT64", v4: v4From(g, h) }
  if (range === "6to4") return { via: "6to4", v4: v4From(b, c) }
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && (g !== 0 || h > 1)) return { via: "IPv4-compatible", v4: v4From(g, h) }
  return undefined
}

/** Classifies one IP address (v4 or v6, no brackets). Anything unparsable is blocked. */
export const classify = (address: string): Verdict => {
  if (!ipaddr.isValid(address)) return block("not an IP address")
  const ip = ipaddr.parse(address)
  if (ip.kind() === "ipv4") return ip instanceof ipaddr.IPv4 ? judgeV4(ip) : block("unparsable")
  if (!(ip instanceof ipaddr.IPv6)) return block("unparsable")
  const range = ip.range()
  if (range === "unspecified" || range === "loopback") return block(`IPv6 ${range}`)
  const inner = embedded(ip)
  if (inner !== undefined) {
    const v = judgeV4(inner.v4)
    return v.ok ? pass : block(`${v.range} embedded in IPv6 (${inner.via} ${inner.v4.toString()})`)
  }
  return range === "unicast" ? pass : block(`IPv6 ${range}`)
}

export type Target =
  | { readonly _tag: "Literal"; readonly url: URL; readonly address: ResolvedAddress }
  | { readonly _tag: "Name"; readonly url: URL; readonly host: string }

/** Parses with the WHATWG URL parser (which normalises `2130706433`, `0x7f.1`, `127.1`…); only http(s). */
export const target = (raw: string): Either.Either<Target, D.Decision> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Either.left(D.deny("guard", "net.url", `not a valid URL: ${raw.slice(0, 200)}`))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left(D.deny("guard", "net.scheme", `only http and https URLs are fetched, not ${url.protocol}`))
  }
  const host = url.hostname
  if (host.startsWith("[") && host.endsWith("]")) {
    return Either.right({ _tag: "Literal", url, address: { address: host.slice(1, -1), family: 6 } })
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return Either.right({ _tag: "Literal", url, address: { address: host, family: 4 } })
  if (host === "") return Either.left(D.deny("guard", "net.url", "the URL has no host"))
  return Either.right({ _tag: "Name", url, host })
}

/** Judges every address a host resolved to: one blocked address blocks the host. */
export const judge = (host: string, addresses: ReadonlyArray<ResolvedAddress>, allowPrivate: boolean): D.Decision => {
  if (addresses.length === 0) return D.deny("guard", "net.dns", `${host} resolved to no address (fail closed)`)
  if (allowPrivate) {
    return D.allow("guard", "net.private-allowed", `${host} → ${addresses.map((a) => a.address).join(", ")} (private addresses allowed for this server)`)
  }
  for (const a of addresses) {
    const v = classify(a.address)
    const shown = a.address === host ? host : `${host} → ${a.address}`
    if (!v.ok) return D.deny("guard", "net.blocked-address", `${shown}: ${v.range} addresses are not reachable from tools (SSRF guard)`)
  }
  return D.allow("guard", "net.public", `${host} → ${addresses.map((a) => a.address).join(", ")}: public addresses`)
}

/** Resolves a host name to every address (no caching here: each connection resolves once and is pinned). */
export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const defaultDnsTimeoutMs = 5_000

export const nodeResolver =
  (timeoutMs: number = defaultDnsTimeoutMs): Resolver =>
  (host) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out after ${timeoutMs} ms`)), timeoutMs)
    })
    const lookup = dns.promises.lookup(host, { all: true, verbatim: true }).then((all) =>
      all.map((a): ResolvedAddress => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
    )
    return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer))
  }

/** Resolves (when needed) and judges; every failure is a deny. */
export const checkWith = (resolve: Resolver) => (raw: string, allowPrivate: boolean): Effect.Effect<NetCheck> =>
  Either.match(target(raw), {
    onLeft: (decision) => Effect.succeed<NetCheck>({ decision, addresses: [] }),
    onRight: (t) => {
      if (t._tag === "Literal") return Effect.succeed<NetCheck>({ decision: judge(t.address.address, [t.address], allowPrivate), addresses: [t.address] })
      return Effect.tryPromise(() => resolve(t.host)).pipe(
        Effect.map((addresses): NetCheck => ({ decision: judge(t.host, addresses, allowPrivate), addresses })),
        Effect.catchAll((cause) =>
          Effect.succeed<NetCheck>({
            decision: D.deny("guard", "net.dns", `cannot resolve ${t.host}: ${cause.error instanceof Error ? cause.error.message : String(cause.error)} (fail closed)`),
            addresses: []
          })
        )
      )
    }
  })

export const make = (resolve: Resolver = nodeResolver()) =>
  Effect.sync(() => {
    const check = checkWith(resolve)
    return NetGuard.of({ check: (url, options) => check(url, options?.allowPrivate === true) })
  })

export const layer = Layer.effect(NetGuard, make())
export const layerWith = (resolve: Resolver) => Layer.effect(NetGuard, make(resolve))
