/**
 * The LSP client's face that goes through the workspace's broker (BrokerServer.ts): every operation is one request
 * on a fresh connection to the broker's socket, with the documents the caller read through the jail. The first use
 * starts the broker when none listens (or its socket is stale), and waits for it to listen. When the broker cannot
 * be reached (refused: a socket that is not the user's own; not started in time; died during the request), the
 * operation runs on `direct`, an in-process client built on first need: the same answers, only colder.
 */
import type * as net from "node:net"
import { Clock, Duration, Effect, Either, Ref, Schema } from "effect"
import type { ServerEntry } from "../../domain/core/Config.js"
import * as Lsp from "../../domain/lsp/Lsp.js"
import * as Protocol from "../../domain/lsp/BrokerProtocol.js"
import { type LspError, LspTransport, type LspTransportShape } from "../../ports/LspTransport.js"
import * as Progress from "../../ports/Progress.js"
import { lines, type Place, reach } from "./BrokerSocket.js"

export interface ClientOptions {
  readonly root: string
  readonly place: Place
  readonly servers: Readonly<Record<string, ServerEntry>>
  /** Starts a broker for the place, detached (it outlives this process); why not, when it cannot. */
  readonly start: Effect.Effect<string | undefined>
  /** The in-process client, for when the broker cannot answer. */
  readonly direct: Effect.Effect<LspTransportShape>
  /** Told once per reason why the broker is not used (stderr). */
  readonly notice: (sentence: string) => void
  /** How long a started broker has to listen (default 30 s: a loaded machine starts Node slowly). */
  readonly startTimeoutMs?: number
  /** After the broker could not be reached, how long calls go straight to `direct` (default 60 s). */
  readonly retryAfterMs?: number
}

type Exchange = Either.Either<unknown, LspError> | "down"

const decodeLine = Schema.decodeUnknownEither(Protocol.LineJson)
const encodeRequest = Schema.encodeSync(Protocol.RequestJson)

/** Writes the request and reads the broker's lines until its reply; "down" if the connection ends without one. */
const exchange = (socket: net.Socket, request: Protocol.Request) =>
  Effect.flatMap(Progress.current, (progress) =>
    Effect.async<Exchange>((resume) => {
      let done = false
      const finish = (e: Exchange) => {
        if (done) return
        done = true
        resume(Effect.succeed(e))
        socket.end()
      }
      lines(
        socket,
        (text) => {
          const line = decodeLine(text)
          if (Either.isLeft(line)) return finish("down")
          const l = line.right
          if (l.kind === "note") progress.note(l.message)
          else if (l.kind === "log") progress.log(l.level, l.message)
          else if (l.kind === "ok") finish(Either.right(l.value))
          else finish(Either.left(l.error))
        },
        () => finish("down")
      )
      socket.write(`${encodeRequest(request)}\n`)
      return Effect.sync(() => void socket.destroy())
    })
  )

export const make = (o: ClientOptions): Effect.Effect<LspTransportShape> =>
  Effect.gen(function* () {
    const startTimeoutMs = o.startTimeoutMs ?? 30_000
    const retryAfterMs = o.retryAfterMs ?? 60_000
    const told = new Set<string>()
    const notice = (sentence: string) => {
      if (told.has(sentence)) return
      told.add(sentence)
      o.notice(sentence)
    }
    /** Until when calls skip the broker (it could not be reached). */
    const skipUntil = yield* Ref.make(0)

    const unusable = (reason: string) =>
      Effect.zipRight(
        Effect.sync(() => notice(`${reason}; answering in-process`)),
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.as(Ref.set(skipUntil, now + retryAfterMs), undefined))
      )

    /** A connection to the broker, starting it when none listens; undefined when it cannot be had. */
    const connection: Effect.Effect<net.Socket | undefined> = Effect.gen(function* () {
      if ((yield* Clock.currentTimeMillis) < (yield* Ref.get(skipUntil))) return undefined
      const first = yield* reach(o.place)
      if (first._tag === "Connected") return first.socket
      if (first._tag === "Refused") return yield* unusable(first.reason)
      const notStarted = yield* o.start
      if (notStarted !== undefined) return yield* unusable(notStarted)
      const until = (yield* Clock.currentTimeMillis) + startTimeoutMs
      while ((yield* Clock.currentTimeMillis) < until) {
        yield* Effect.sleep(Duration.millis(25))
        const r = yield* reach(o.place)
        if (r._tag === "Connected") return r.socket
        if (r._tag === "Refused") return yield* unusable(r.reason)
      }
      return yield* unusable(`the LSP broker did not start within ${startTimeoutMs} ms (its log: ${o.place.logFile})`)
    })

    const { groups } = Lsp.groups(o.servers)
    const servers = groups.map((g) => ({ name: Lsp.groupName(g), extensions: g.extensions }))
    const byExtension = new Map(servers.flatMap((s) => s.extensions.map((e) => [e, s] as const)))
    const serverFor = (path: string) => byExtension.get(Lsp.extensionOf(path))

    const brokered = <A>(operation: Protocol.Operation, direct: (t: LspTransportShape) => Effect.Effect<A, LspError>): Effect.Effect<A, LspError> =>
      Effect.gen(function* () {
        // No server for these files: the in-process client says so without anything started.
        const wanted = Protocol.documentsOf(operation).some((d) => serverFor(d.path) !== undefined)
        const socket = wanted ? yield* connection : undefined
        if (socket !== undefined) {
          const progress = yield* Progress.current
          const answer = yield* exchange(socket, { version: Protocol.version, root: o.root, watched: progress.watched, operation })
          // The broker is this user's own, of this protocol version, running the same client code: its value is
          // what `direct` would return, as JSON.
          if (answer !== "down") return yield* Either.match(answer, { onLeft: Effect.fail, onRight: (value) => Effect.succeed(value as A) })
          yield* unusable("the LSP broker stopped during the request")
        }
        return yield* Effect.flatMap(o.direct, direct)
      })

    return LspTransport.of({
      servers,
      serverFor,
      diagnostics: (doc, options) =>
        brokered({ op: "diagnostics", doc, changed: options?.changed === true }, (t) => t.diagnostics(doc, options)),
      definition: (doc, at) => brokered({ op: "definition", doc, at }, (t) => t.definition(doc, at)),
      references: (doc, at, includeDeclaration) =>
        brokered({ op: "references", doc, at, includeDeclaration }, (t) => t.references(doc, at, includeDeclaration)),
      hover: (doc, at) => brokered({ op: "hover", doc, at }, (t) => t.hover(doc, at)),
      implementation: (doc, at) => brokered({ op: "implementation", doc, at }, (t) => t.implementation(doc, at)),
      callHierarchy: (doc, at, direction) => brokered({ op: "callHierarchy", doc, at, direction }, (t) => t.callHierarchy(doc, at, direction)),
      documentSymbols: (doc) => brokered({ op: "documentSymbols", doc }, (t) => t.documentSymbols(doc)),
      workspaceSymbols: (query, anchors) => brokered({ op: "workspaceSymbols", query, anchors }, (t) => t.workspaceSymbols(query, anchors))
    })
  })

/** One request to a running broker (`lsp status`, `lsp stop`): its value, or why there is none. */
export const ask = (place: Place, root: string, operation: Protocol.Operation): Effect.Effect<Either.Either<unknown, string>> =>
  Effect.gen(function* () {
    const r = yield* reach(place)
    if (r._tag === "Refused") return Either.left(r.reason)
    if (r._tag !== "Connected") return Either.left(r._tag === "Stale" ? "its socket is stale (the broker died)" : "no broker is running")
    const answer = yield* exchange(r.socket, { version: Protocol.version, root, watched: false, operation })
    if (answer === "down") return Either.left("the broker closed the connection")
    return Either.mapLeft(answer, (e) => e.message)
  })
