/**
 * The LSP broker's side of the socket (BrokerSocket.ts): it takes the workspace's pid file as its lock (a second
 * broker started for the same place finds it held by a live broker and leaves), replaces a stale socket, listens
 * (socket 0600 in a 0700 folder), and serves each connection's one request on the language servers it holds,
 * forwarding the request's progress notes. A connection closed before the reply interrupts its request. It stops
 * after `idleMs` without a request in flight, or when asked (`stop`), removing its socket and pid file.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import { Clock, Deferred, Duration, Effect, Either, Queue, Ref, Schema } from "effect"
import { ToolFailed } from "../../domain/core/Errors.js"
import * as Protocol from "../../domain/lsp/BrokerProtocol.js"
import type { LspError, LspTransportShape } from "../../ports/LspTransport.js"
import { Progress, type ProgressShape } from "../../ports/Progress.js"
import { ensureFolder, isBroker, lines, type Place, readPid } from "./BrokerSocket.js"

export interface ServeOptions {
  readonly root: string
  readonly place: Place
  readonly idleMs: number
  readonly transport: LspTransportShape
}

const brokerFailed = (reason: string) => new ToolFailed({ tool: "lsp broker", reason })

/** Takes the pid file; false when a live broker holds it. */
const lock = (pidFile: string): boolean => {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(pidFile, `${process.pid}\n`, { flag: "wx", mode: 0o600 })
      return true
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
      const pid = readPid(pidFile)
      if (pid !== undefined && pid !== process.pid && isBroker(pid)) return false
      // A broker that died without tidying up: its lock is stale.
      fs.rmSync(pidFile, { force: true })
    }
  }
  return false
}

const ownsLock = (pidFile: string) => readPid(pidFile) === process.pid

const unlinkQuietly = (file: string) => {
  try {
    fs.unlinkSync(file)
  } catch {
    // Already gone.
  }
}

/** The processes under `pid` (Linux /proc), with their resident memory in bytes. */
const descendants = (pid: number): ReadonlyArray<{ readonly pid: number; readonly rss: number }> => {
  let entries: ReadonlyArray<string>
  try {
    entries = fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n))
  } catch {
    return []
  }
  const parent = new Map<number, number>()
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      parent.set(Number(e), Number(fields[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const under = (p: number): boolean => {
    let q = parent.get(p)
    for (let hops = 0; q !== undefined && hops < 64; hops++) {
      if (q === pid) return true
      q = parent.get(q)
    }
    return false
  }
  return [...parent.keys()].filter(under).map((p) => {
    let rss = 0
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))
      rss = m === null ? 0 : Number(m[1]) * 1024
    } catch {
      // Gone meanwhile.
    }
    return { pid: p, rss }
  })
}

const listen = (server: net.Server, socket: string) =>
  Effect.async<void, ToolFailed>((resume) => {
    const onError = (e: Error) => resume(Effect.fail(brokerFailed(`cannot listen on ${socket}: ${e.message}`)))
    server.once("error", onError)
    server.listen(socket, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

/**
 * Serves until idle or asked to stop: `"served"`, or `"another"` when a live broker already holds the place (this
 * one then leaves at once). Fails when the folder is not the user's own, or the socket cannot be made.
 */
export const serve = (o: ServeOptions): Effect.Effect<"served" | "another", ToolFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const bad = ensureFolder(o.place.dir)
      if (bad !== undefined) return yield* brokerFailed(bad)
      const locked = yield* Effect.try({ try: () => lock(o.place.pidFile), catch: (e) => brokerFailed(`cannot take ${o.place.pidFile}: ${String(e)}`) })
      if (!locked) return "another" as const
      yield* Effect.addFinalizer(() => Effect.sync(() => (ownsLock(o.place.pidFile) ? unlinkQuietly(o.place.pidFile) : undefined)))
      // We hold the lock: a socket file left here is a dead broker's.
      unlinkQuietly(o.place.socket)
      const server = net.createServer({ allowHalfOpen: false })
      const previous = process.umask(0o077)
      yield* Effect.ensuring(listen(server, o.place.socket), Effect.sync(() => process.umask(previous)))
      fs.chmodSync(o.place.socket, 0o600)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          server.close()
          if (ownsLock(o.place.pidFile)) unlinkQuietly(o.place.socket)
        })
      )
      if (!ownsLock(o.place.pidFile)) return "another" as const

      const stop = yield* Deferred.make<void>()
      const inflight = yield* Ref.make(0)
      const served = yield* Ref.make(0)
      const startedAt = yield* Clock.currentTimeMillis
      const lastActive = yield* Ref.make(startedAt)

      const status = Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const children = descendants(process.pid)
        const value: Protocol.Status = {
          pid: process.pid,
          root: o.root,
          uptimeMs: now - startedAt,
          requests: yield* Ref.get(served),
          idleMs: o.idleMs,
          rssBytes: process.memoryUsage().rss,
          serversRssBytes: children.reduce((sum, c) => sum + c.rss, 0),
          children: children.map((c) => c.pid)
        }
        return value
      })

      const t = o.transport
      const dispatch = (request: Protocol.Request): Effect.Effect<unknown, LspError> => {
        if (request.root !== o.root) return Effect.fail(brokerFailed(`this broker serves ${o.root}, not ${request.root}`))
        const outside = Protocol.documentsOf(request.operation).find((d) => !Protocol.inside(o.root, d.path))
        if (outside !== undefined) return Effect.fail(brokerFailed(`${outside.path} is outside the broker's workspace ${o.root}`))
        const op = request.operation
        switch (op.op) {
          case "diagnostics":
            return t.diagnostics(op.doc, { changed: op.changed })
          case "definition":
            return t.definition(op.doc, op.at)
          case "hover":
            return t.hover(op.doc, op.at)
          case "implementation":
            return t.implementation(op.doc, op.at)
          case "callHierarchy":
            return t.callHierarchy(op.doc, op.at, op.direction)
          case "references":
            return t.references(op.doc, op.at, op.includeDeclaration)
          case "documentSymbols":
            return t.documentSymbols(op.doc)
          case "workspaceSymbols":
            return t.workspaceSymbols(op.query, op.anchors)
          case "status":
            return status
          case "stop":
            // Stopped once the reply is written (handle).
            return Effect.succeed(null)
        }
      }

      const encodeLine = Schema.encodeSync(Protocol.LineJson)
      const decodeRequest = Schema.decodeUnknownEither(Protocol.RequestJson)

      const handle = (socket: net.Socket) =>
        Effect.gen(function* () {
          const write = (line: Protocol.Line) => {
            if (!socket.destroyed) socket.write(`${encodeLine(line)}\n`)
          }
          // The first line is the request; the connection closing ends (and interrupts) the work.
          const first = yield* Deferred.make<string>()
          const closed = yield* Deferred.make<void>()
          lines(
            socket,
            (line) => void Deferred.unsafeDone(first, Effect.succeed(line)),
            () => void Deferred.unsafeDone(closed, Effect.void)
          )
          const work = Effect.gen(function* () {
            const line = yield* Deferred.await(first)
            const request = decodeRequest(line)
            if (Either.isLeft(request)) {
              write({ kind: "failed", error: brokerFailed(`a request it does not understand (protocol ${Protocol.version}): ${request.left.message.slice(0, 200)}`) })
              return
            }
            const progress: ProgressShape = {
              watched: request.right.watched,
              note: (message) => write({ kind: "note", message }),
              log: (level, message) => write({ kind: "log", level, message })
            }
            yield* Ref.update(inflight, (n) => n + 1)
            const result = yield* dispatch(request.right).pipe(
              Effect.provideService(Progress, progress),
              Effect.either,
              Effect.ensuring(
                Effect.zipRight(Ref.update(inflight, (n) => n - 1), Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(lastActive, now)))
              )
            )
            yield* Ref.update(served, (n) => n + 1)
            write(Either.isRight(result) ? { kind: "ok", value: result.right ?? null } : { kind: "failed", error: result.left })
            if (request.right.operation.op === "stop") yield* Deferred.succeed(stop, undefined)
          })
          yield* Effect.raceFirst(work, Deferred.await(closed))
          socket.end()
        }).pipe(Effect.catchAllDefect((defect) => Effect.sync(() => {
          process.stderr.write(`lsp broker: a request failed unexpectedly: ${String(defect)}\n`)
          socket.destroy()
        })))

      const incoming = yield* Queue.unbounded<net.Socket>()
      server.on("connection", (socket) => void Queue.unsafeOffer(incoming, socket))
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(incoming), (socket) => Effect.fork(handle(socket)))))

      const tick = Duration.millis(Math.max(20, Math.min(1000, Math.floor(o.idleMs / 5))))
      const idle = Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if ((yield* Ref.get(inflight)) === 0 && now - (yield* Ref.get(lastActive)) >= o.idleMs) yield* Deferred.succeed(stop, undefined)
        // A workspace that is gone (a deleted checkout, a test's temp folder) has nothing left to serve.
        if (!fs.existsSync(o.root)) yield* Deferred.succeed(stop, undefined)
      }).pipe(Effect.zipRight(Effect.sleep(tick)), Effect.forever)
      yield* Effect.forkScoped(idle)
      yield* Deferred.await(stop)
      return "served" as const
    })
  )
