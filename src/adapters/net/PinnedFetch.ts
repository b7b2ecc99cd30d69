/**
 * One network guard for every HTTP request minicode makes (MCP POST/GET/DELETE/SSE, OAuth discovery, web_fetch):
 * a fetch built on an undici Agent whose connector resolves the host once, judges every address and connects
 * to the checked one (DNS rebinding between check and connect is impossible). IP literals skip undici's lookup,
 * so they are judged before dispatch, and every connected socket's remote address is asserted again.
 * Redirects are never followed here; bodies and SSE events are size-capped. undici is imported lazily.
 */
import type * as dns from "node:dns"
import { Effect, Either, Layer, Scope } from "effect"
import { ToolFailed } from "../../domain/core/Errors.js"
import { WebFetch, type WebPage } from "../../ports/WebFetch.js"
import { classify, judge, nodeResolver, type Resolver, target } from "./NetGuard.js"

/** What the SDK transports accept as `fetch`. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

/** A request the guard refused; thrown inside the fetch so the SDK reports it as a transport error. */
export class BlockedRequest extends Error {
  override readonly name = "BlockedRequest"
}

export interface PinnedFetchOptions {
  readonly resolve?: Resolver
  /** The explicit opt-in for one configured server. */
  readonly allowPrivate?: boolean
  /** Cap on a whole non-SSE response body. */
  readonly maxBodyBytes?: number
  /** Cap on one SSE event (bytes between blank lines). */
  readonly maxEventBytes?: number
  readonly connectTimeoutMs?: number
  /** "error" (MCP: a redirect is a failure) or "return" (web_fetch follows hops itself, re-checking each). */
  readonly redirects?: "error" | "return"
}

export const defaultMaxBodyBytes = 8 * 1024 * 1024

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308
const nullBody = (status: number) => status === 101 || status === 204 || status === 205 || status === 304

/** Errors the stream once the body (or, for SSE, one event) passes the cap. */
const capped = (body: ReadableStream<Uint8Array>, limit: number, sse: boolean): ReadableStream<Uint8Array> => {
  let count = 0
  let newline = false
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!sse) {
          count += chunk.byteLength
          if (count > limit) return controller.error(new BlockedRequest(`response body exceeds ${limit} bytes`))
          return controller.enqueue(chunk)
        }
        for (const byte of chunk) {
          if (byte === 10) {
            if (newline) count = 0
            newline = true
          } else if (byte !== 13) {
            newline = false
            if (++count > limit) return controller.error(new BlockedRequest(`an SSE event exceeds ${limit} bytes`))
          }
        }
        controller.enqueue(chunk)
      }
    })
  )
}

const headerRecord = (init: ConstructorParameters<typeof Headers>[0]): Record<string, string> => {
  const out: Record<string, string> = {}
  new Headers(init).forEach((value, key) => {
    out[key] = value
  })
  return out
}

const bodyOf = (body: NonNullable<RequestInit["body"]>): string => {
  if (typeof body === "string") return body
  if (body instanceof URLSearchParams) return body.toString()
  throw new BlockedRequest("unsupported request body type")
}

/** A pinned fetch whose undici Agent lives as long as the scope. */
export const make = (options: PinnedFetchOptions = {}): Effect.Effect<FetchLike, never, Scope.Scope> =>
  Effect.gen(function* () {
    const undici = yield* Effect.promise(() => import("undici"))
    const resolve = options.resolve ?? nodeResolver()
    const allowPrivate = options.allowPrivate === true
    const maxBody = options.maxBodyBytes ?? defaultMaxBodyBytes
    const maxEvent = options.maxEventBytes ?? maxBody

    /** net.connect's lookup: resolve once, judge every address, hand back only the checked ones. */
    const lookup = (
      hostname: string,
      opts: dns.LookupOptions,
      callback: (err: NodeJS.ErrnoException | null, address: string | Array<dns.LookupAddress>, family?: number) => void
    ): void => {
      resolve(hostname).then(
        (addresses) => {
          const decision = judge(hostname, addresses, allowPrivate)
          if (decision.decision !== "allow") return callback(new BlockedRequest(decision.reason), "", 0)
          const wanted = opts.family === 4 || opts.family === 6 ? addresses.filter((a) => a.family === opts.family) : addresses
          const first = wanted[0]
          if (first === undefined) return callback(new BlockedRequest(`${hostname} has no IPv${String(opts.family)} address`), "", 0)
          if (opts.all === true) return callback(null, wanted.map((a) => ({ address: a.address, family: a.family })))
          callback(null, first.address, first.family)
        },
        (cause: unknown) => callback(new BlockedRequest(`cannot resolve ${hostname}: ${cause instanceof Error ? cause.message : String(cause)}`), "", 0)
      )
    }
    const base = undici.buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup })
    const connect = (opts: Parameters<typeof base>[0], callback: Parameters<typeof base>[1]) =>
      base(opts, (...args) => {
        const [error, socket] = args
        if (error !== null) return callback(error, null)
        const remote = socket.remoteAddress
        const verdict = remote === undefined ? { ok: false as const, range: "no remote address" } : allowPrivate ? { ok: true as const } : classify(remote)
        if (!verdict.ok) {
          socket.destroy()
          return callback(new BlockedRequest(`connected to ${remote ?? "?"}: ${verdict.range} (SSRF guard)`), null)
        }
        callback(null, socket)
      })
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => new undici.Agent({ connect })),
      (a) => Effect.promise(() => a.destroy().catch(() => undefined))
    )

    const pinned: FetchLike = async (input, init) => {
      const href = typeof input === "string" ? input : input.href
      const t = target(href)
      if (Either.isLeft(t)) throw new BlockedRequest(t.left.reason)
      if (t.right._tag === "Literal" && !allowPrivate) {
        const verdict = classify(t.right.address.address)
        if (!verdict.ok) throw new BlockedRequest(`${t.right.address.address}: ${verdict.range} addresses are not reachable (SSRF guard)`)
      }
      const response = await undici.fetch(t.right.url, {
        method: init?.method ?? "GET",
        headers: headerRecord(init?.headers),
        ...(init?.body === undefined || init.body === null ? {} : { body: bodyOf(init.body) }),
        redirect: "manual",
        dispatcher: agent,
        ...(init?.signal ? { signal: init.signal } : {})
      })
      if (isRedirect(response.status) && options.redirects !== "return") {
        await response.body?.cancel().catch(() => undefined)
        throw new BlockedRequest(`${href} answered ${response.status} (redirect to ${response.headers.get("location") ?? "?"}): redirects are not followed`)
      }
      const headers = new Headers()
      response.headers.forEach((value, key) => headers.append(key, value))
      const sse = (headers.get("content-type") ?? "").includes("text/event-stream")
      const stream = response.body === null || nullBody(response.status) ? null : capped(response.body, sse ? maxEvent : maxBody, sse)
      return new Response(stream, { status: response.status, statusText: response.statusText, headers })
    }
    return pinned
  })

const charsetOf = (contentType: string) => /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8"
const isTextual = (contentType: string) =>
  contentType === "" || /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded)\b|^application\/(xhtml|rss|atom)/i.test(contentType)

/** Reads at most `maxBytes` of a body, then stops (the rest is never downloaded). */
const readCapped = async (response: Response, maxBytes: number) => {
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  let truncated = false
  const reader = response.body?.getReader()
  while (reader !== undefined) {
    const { done, value } = await reader.read()
    if (done) break
    const room = maxBytes - bytes
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room))
      bytes += room
      truncated = true
      await reader.cancel().catch(() => undefined)
      break
    }
    chunks.push(value)
    bytes += value.byteLength
  }
  const all = new Uint8Array(bytes)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  return { all, bytes, truncated }
}

export const maxRedirects = 5
export const hardMaxBytes = 10 * 1024 * 1024

/** GET with each redirect hop re-checked (at most five), body capped. */
export const get = (fetch: FetchLike, url: string, maxBytes: number): Effect.Effect<WebPage, ToolFailed> =>
  Effect.tryPromise({
    try: async (signal) => {
      let current = url
      for (let hop = 0; ; hop++) {
        const response = await fetch(current, { method: "GET", headers: { accept: "text/html, text/plain;q=0.9, */*;q=0.5", "user-agent": "minicode" }, signal })
        const location = response.headers.get("location")
        if (isRedirect(response.status) && location !== null) {
          await response.body?.cancel().catch(() => undefined)
          if (hop >= maxRedirects) throw new BlockedRequest(`more than ${maxRedirects} redirects`)
          current = new URL(location, current).href
          continue
        }
        const contentType = response.headers.get("content-type") ?? ""
        const { all, bytes, truncated } = await readCapped(response, Math.min(maxBytes, hardMaxBytes))
        const binary = !isTextual(contentType)
        let text = ""
        if (!binary) {
          try {
            text = new TextDecoder(charsetOf(contentType)).decode(all)
          } catch {
            text = new TextDecoder("utf-8").decode(all)
          }
        }
        return { url: current, status: response.status, contentType, text, bytes, truncated, binary }
      }
    },
    catch: (cause) => new ToolFailed({ tool: "web_fetch", reason: cause instanceof Error ? (cause.cause instanceof Error ? `${cause.message}: ${cause.cause.message}` : cause.message) : String(cause) })
  })

/** The WebFetch port on a pinned fetch (public addresses only); undici loads on the first GET. */
export const webLayer = (options: Omit<PinnedFetchOptions, "redirects" | "allowPrivate"> = {}) =>
  Layer.scoped(
    WebFetch,
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const fetch = yield* Effect.cached(make({ ...options, redirects: "return", maxBodyBytes: hardMaxBytes + 1 }).pipe(Scope.extend(scope)))
      return WebFetch.of({ get: (url, maxBytes) => Effect.flatMap(fetch, (f) => get(f, url, maxBytes)) })
    })
  )
