/**
 * The LSP client on vscode-jsonrpc (framing, ids, cancellation) and the protocol's message shapes. One process per
 * server configuration, spawned on first use in the workspace with the scrubbed environment, in its own process
 * group (a server's helpers, like tsserver, die with it), rooted at the workspace (`rootUri`, `workspaceFolders`).
 *
 * - Requests servers send to clients are answered (`workspace/configuration`, `window/workDoneProgress/create`,
 *   `client/registerCapability`, `workspace/workspaceFolders`, …) so no server stalls waiting for us.
 * - Documents are opened for the operations that use them and closed after (`didOpen` with the language id,
 *   `didChange` with the next version when an open document's text changed, `didClose`). Versions grow
 *   monotonically per URI for the life of a server, so a late report about an older copy is never taken for news.
 * - Diagnostics are reported once the server has settled (LspSettle.ts): tsserver's own diagnostics requests,
 *   pull diagnostics when offered, else the version-matched publish or, for version-less servers, the reports after
 *   a barrier until the server is quiet with no work-done progress running; "may be incomplete" at the deadline.
 *   Definition, references, hover and workspace symbols first wait for the project to load (or say it is loading).
 * - A crashed server fails its pending requests at once and is restarted on next use, after a back-off that
 *   doubles per consecutive failure; inbound messages are capped.
 * - Every exchange has a deadline (`defaults`, or the entry's `timeouts`): initialize, each request, each
 *   notification written to the server, the wait for diagnostics, shutdown. A server that misses a request's
 *   deadline is hung: its whole process group is killed at once (restarted on next use). On close, shutdown and
 *   exit are sent with their own deadline, then the group is killed (SIGTERM, SIGKILL after a short grace): no
 *   server or helper outlives the session, even when the session is interrupted (SIGTERM to the CLI).
 * - A server that exits at start (before answering initialize) is reported as such, with its exit status and the
 *   last lines of its stderr; writes to a dead server's stdin (EPIPE) fail requests, never the process.
 *
 * vscode-jsonrpc is imported on the first server start: a session that never uses a language server never loads it.
 */
import type * as Rpc from "vscode-jsonrpc/node.js"
import { Clock, Deferred, Duration, Effect, Either, ExecutionStrategy, Exit, Layer, Ref, Schema, Scope, SynchronizedRef } from "effect"
import type { Launcher } from "../../ports/Launcher.js"
import type { ServerEntry } from "../../domain/core/Config.js"
import * as Env from "../../domain/sandbox/Env.js"
import { ToolFailed, ToolTimeout, Unavailable } from "../../domain/core/Errors.js"
import * as CallHierarchy from "../../domain/lsp/CallHierarchy.js"
import * as Lsp from "../../domain/lsp/Lsp.js"
import * as Progress from "../../ports/Progress.js"
import { type LspDocument, type LspError, type LspServerInfo, LspTransport } from "../../ports/LspTransport.js"
import { defaults, type Options } from "./JsonRpcLspOptions.js"
import { answerServerRequests, capsOf, initializeParams, lastLines, messageOf, offerable, tail, WorkDoneProgress } from "./LspProtocol.js"
import * as Settle from "./LspSettle.js"
import { killGroup, signalGroup, spawnServer as spawnProcess, waitExit } from "./LspProcess.js"
import type { Docs, Instance, Life, Published, RpcModule, Timeouts } from "./LspInstance.js"

export { defaults, type Options } from "./JsonRpcLspOptions.js"

/** LSP's ServerCancelled: the server gave up on a (pull) request and asks to be asked again. */
const serverCancelled = -32802
const retrigger = new ToolFailed({ tool: "language server", reason: "server cancelled the request" })

/** A server that stayed up this long is healthy again: its next crash starts the back-off from the beginning. */
const healthyAfterMs = 60_000

const rpcModule: Effect.Effect<RpcModule> = Effect.promise(() => import("vscode-jsonrpc/node.js"))

interface Slot {
  readonly instance: Instance | undefined
  readonly failures: number
  readonly failedAt: number
}

interface Server {
  readonly info: LspServerInfo
  readonly entry: ServerEntry
  readonly timeouts: Timeouts
  readonly slot: SynchronizedRef.SynchronizedRef<Slot>
  /**
   * Why the server was last killed as hung (a missed deadline), until an instance of it answers initialize again; and
   * whether a write's report already said so. Diagnostics after writes do not start it again meanwhile: each would
   * wait out the deadline again (30 s a write).
   */
  readonly hung: Ref.Ref<{ readonly reason: string; readonly told: boolean } | undefined>
}

/** The transport, and `warm` (start one server and initialise it) for doctor's probe (LspProbe.ts). */
export const build = (options: Options) =>
  Effect.gen(function* () {
    const layerScope = yield* Effect.scope
    const rpc = yield* Effect.cached(rpcModule)
    const o = { ...defaults, ...options }
    const root = options.root
    const rootUri = Lsp.fileUri(root)
    const folders = [{ uri: rootUri, name: root.slice(root.lastIndexOf("/") + 1) || root }]

    const { groups } = Lsp.groups(options.servers)
    const servers: Array<Server> = []
    for (const g of groups) {
      servers.push({
        info: { name: Lsp.groupName(g), extensions: g.extensions },
        entry: g.entry,
        timeouts: {
          initializeMs: g.entry.timeouts?.initializeMs ?? o.initializeTimeoutMs,
          requestMs: g.entry.timeouts?.requestMs ?? o.requestTimeoutMs,
          diagnosticsMs: g.entry.timeouts?.diagnosticsMs ?? o.diagnosticsTimeoutMs,
          loadMs: g.entry.timeouts?.loadMs ?? o.loadTimeoutMs,
          shutdownMs: g.entry.timeouts?.shutdownMs ?? o.shutdownTimeoutMs
        },
        slot: yield* SynchronizedRef.make<Slot>({ instance: undefined, failures: 0, failedAt: 0 }),
        hung: yield* Ref.make<{ readonly reason: string; readonly told: boolean } | undefined>(undefined)
      })
    }
    const byExtension = new Map(servers.flatMap((s) => s.info.extensions.map((e) => [e, s] as const)))
    const serverOf = (path: string) => byExtension.get(Lsp.extensionOf(path))

    const failed = (name: string, reason: string) => new ToolFailed({ tool: `language server ${name}`, reason })

    /** Spawns the process; fails (command missing, not executable) before any protocol is spoken. */
    const launcher: Launcher = options.launch ?? ((r) => Effect.succeed({ argv: r.argv, env: r.env }))
    const spawnServer = (server: Server, life: Life) =>
      Effect.flatMap(
        launcher({
          argv: [server.entry.command ?? "", ...(server.entry.args ?? [])],
          env: { ...Env.scrub(options.env ?? {}, { unrestricted: options.unrestricted === true }), ...server.entry.env },
          // Language servers run workspace code (a planted node_modules/typescript/lib/tsserver.js): sandboxed by default
          // whenever a sandbox can be made; `sandbox: false` (config lsp add --no-sandbox) opts out, `true` requires it.
          sandbox: server.entry.sandbox === undefined ? "when-available" : server.entry.sandbox,
          network: false,
          toolchainCaches: true
        }),
        (launch) => {
          life.ownPidNamespace = launch.ownPidNamespace === true
          return spawnProcess(server.info.name, root, launch, (chunk) => {
            life.stderr = (life.stderr + chunk.toString("utf8")).slice(-o.stderrBytes)
          })
        }
      )
    const start = (server: Server): Effect.Effect<Instance, LspError> =>
      Effect.gen(function* () {
        const m = yield* rpc
        const scope = yield* Scope.fork(layerScope, ExecutionStrategy.sequential)
        const opened = yield* Effect.gen(function* () {
          const life: Life = { alive: true, initialised: false, reason: "", status: undefined, stderr: "", seq: 0, pendingBytes: 0, ownPidNamespace: false, listeners: new Set(), progress: new Map(), progressListeners: new Set(), registered: new Set() }
          const exited = yield* Deferred.make<string>()
          // Who started it hears when it dies on its own (not when minicode stops it): a client log message.
          const progress = yield* Progress.current
          const stopping = { now: false }
          progress.note(`starting the language server ${server.info.name}`)
          const child = yield* Effect.acquireRelease(spawnServer(server, life), (c) =>
            Effect.zipRight(Effect.sync(() => (stopping.now = true)), killGroup(c, o.killGraceMs))
          )
          const stdout = child.stdout
          const stdin = child.stdin
          if (stdout === null || stdin === null) return yield* failed(server.info.name, "no stdio pipes")
          const die = (reason: string) => {
            if (!life.alive) return
            life.alive = false
            life.reason = reason
            Deferred.unsafeDone(exited, Exit.succeed(reason))
          }
          child.once("exit", (code, signal) => {
            life.status = signal !== null ? `signal ${signal}` : `code ${code}`
            if (!stopping.now && life.alive) {
              progress.log("error", `the language server ${server.info.name} died (${life.status})`)
            }
            die(signal !== null ? `it was killed by ${signal}` : `it exited with code ${code}`)
            // Its helpers go with it.
            signalGroup(child, "SIGKILL")
          })
          // The message cap: bytes received since the last whole message. One chunk of slack, no framing of ours.
          stdout.on("data", (chunk: Buffer) => {
            life.pendingBytes += chunk.length
            if (life.pendingBytes > o.maxMessageBytes) {
              die(`it sent a message over ${o.maxMessageBytes} bytes`)
              stdout.destroy()
              signalGroup(child, "SIGKILL")
            }
          })
          const inner = new m.StreamMessageReader(stdout)
          const reader: Rpc.MessageReader = {
            onError: inner.onError,
            onClose: inner.onClose,
            onPartialMessage: inner.onPartialMessage,
            listen: (callback) =>
              inner.listen((message) => {
                life.pendingBytes = 0
                callback(message)
              }),
            dispose: () => inner.dispose()
          }
          // A write to a server that is gone resolves (its error still reported through onError): vscode-jsonrpc's
          // sendRequest rethrows a failed write inside a promise executor, an unhandled rejection that would take
          // the process down; the request then ends with the connection, or at its deadline.
          const innerWriter = new m.StreamMessageWriter(stdin)
          const writer: Rpc.MessageWriter = {
            onError: innerWriter.onError,
            onClose: innerWriter.onClose,
            write: (message) => innerWriter.write(message).catch(() => undefined),
            end: () => innerWriter.end(),
            dispose: () => innerWriter.dispose()
          }
          const conn = m.createMessageConnection(reader, writer)
          // The exit status says more than a closed pipe: give it a moment to arrive.
          conn.onClose(() => void setTimeout(() => die("its connection closed"), 200).unref())
          conn.onError(([error]) => void error)
          answerServerRequests(m, conn, folders, (method) => void life.registered.add(method))
          const decodePublish = Schema.decodeUnknownEither(Lsp.PublishDiagnostics)
          conn.onNotification("textDocument/publishDiagnostics", (params: unknown) => {
            const p = decodePublish(params)
            if (Either.isLeft(p)) return
            const published: Published = {
              uri: p.right.uri,
              version: p.right.version ?? undefined,
              diagnostics: p.right.diagnostics,
              seq: ++life.seq
            }
            for (const listener of life.listeners) listener(published)
          })
          conn.onNotification(() => undefined)
          const decodeProgress = Schema.decodeUnknownEither(WorkDoneProgress)
          conn.onUnhandledProgress((params: unknown) => {
            const p = decodeProgress(params)
            if (Either.isLeft(p)) return
            const v = p.right.value
            if (v.kind === "begin") life.progress.set(p.right.token, v.title ?? "")
            else if (v.kind === "end") life.progress.delete(p.right.token)
            // The call that started the server hears how its loading goes (a later call's own wait is its own note).
            if (progress.watched && v.kind !== "end") {
              const title = life.progress.get(p.right.token) ?? ""
              const detail = [v.message, v.percentage === undefined ? undefined : `${Math.round(v.percentage)}%`].filter((x) => x !== undefined && x !== "").join(", ")
              progress.note(`${server.info.name}: ${title === "" ? "working" : title}${detail === "" ? "" : ` (${detail})`}`)
            }
            for (const listener of [...life.progressListeners]) listener()
          })
          conn.listen()
          // Finalisers run uninterruptibly: the deadline needs an interruptible region to cut the wait short.
          yield* Effect.addFinalizer(() =>
            Effect.gen(function* () {
              stopping.now = true
              if (life.alive) {
                yield* Effect.promise(() => conn.sendRequest("shutdown").then(() => conn.sendNotification("exit")).catch(() => undefined)).pipe(
                  Effect.flatMap(() => waitExit(child)),
                  Effect.interruptible,
                  Effect.timeout(Duration.millis(server.timeouts.shutdownMs)),
                  Effect.ignore
                )
              }
              life.alive = false
              conn.dispose()
            })
          )
          // Only a missed deadline kills (`deadline`): the server is remembered as hung.
          const kill = (reason: string) =>
            Effect.suspend(() => {
              die(reason)
              return Effect.zipRight(Ref.set(server.hung, { reason, told: false }), killGroup(child, o.killGraceMs))
            })
          const startedAt = yield* Clock.currentTimeMillis
          const instance: Instance = {
            name: server.info.name,
            timeouts: server.timeouts,
            kill,
            rpc: m,
            child,
            conn,
            life,
            exited,
            docs: yield* SynchronizedRef.make<Docs>({ open: new Map(), last: new Map() }),
            scope,
            startedAt,
            caps: { pull: false, workspacePull: false, tsserver: false, offers: undefined }
          }
          instance.caps = capsOf(yield* send(instance, "initialize", initializeParams(root, rootUri, folders, life.ownPidNamespace ? null : process.pid), server.timeouts.initializeMs))
          life.initialised = true
          yield* Ref.set(server.hung, undefined)
          yield* notify(instance, "initialized", {})
          return instance
        }).pipe(Scope.extend(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
        return opened
      })

    /** Why a request failed once the server is gone: it exited at start, or stopped during the request. */
    const stopped = (instance: Instance, method: string) => {
      const life = instance.life
      if (!life.initialised && life.status !== undefined) {
        const lines = lastLines(life.stderr)
        return failed(instance.name, `the language server exited at start (${life.status})${lines === "" ? " with nothing on stderr" : `: ${lines}`}`)
      }
      return failed(instance.name, `the server stopped during ${method}: ${life.reason}${tail(life.stderr)}; it is restarted on next use`)
    }
    /** The server is gone (or its connection is): wait a moment for its exit status, which says more. */
    const gone = (instance: Instance, method: string) =>
      waitExit(instance.child).pipe(
        Effect.timeout(Duration.millis(300)),
        Effect.ignore,
        Effect.flatMap(() => Effect.fail(stopped(instance, method)))
      )

    /** A missed deadline: the server is hung, and killed (its whole group) before the timeout is reported. */
    const deadline = (instance: Instance, method: string, timeoutMs: number) => <A, E>(effect: Effect.Effect<A, E>) =>
      effect.pipe(
        // Interruptible even inside a finaliser or another uninterruptible region, so the deadline always holds.
        Effect.interruptible,
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: () => new ToolTimeout({ tool: `language server ${instance.name} (${method})`, millis: timeoutMs })
        }),
        Effect.tapError((e) =>
          e instanceof ToolTimeout ? Effect.uninterruptible(instance.kill(`it did not answer ${method} within ${timeoutMs} ms, and was killed`)) : Effect.void
        )
      )

    /** One request, cancelled (`$/cancelRequest`) when interrupted; fails at once if the server dies. */
    const request = (instance: Instance, method: string, params: unknown) =>
      Effect.raceFirst(
        Effect.tryPromise({
          try: (signal) => {
            const source = new instance.rpc.CancellationTokenSource()
            signal.addEventListener("abort", () => {
              // A closed connection cannot send the cancellation (and would log that it cannot).
              if (!instance.life.alive) return
              try {
                source.cancel()
              } catch {
                // The connection is gone: nothing to cancel.
              }
            })
            return instance.conn.sendRequest<unknown>(method, params, source.token)
          },
          catch: (cause) => cause
        }).pipe(
          Effect.catchAll((cause) =>
            cause instanceof instance.rpc.ResponseError
              ? Effect.fail(
                  cause.code === serverCancelled ? retrigger : failed(instance.name, `${method} failed: ${messageOf(cause)}`)
                )
              : gone(instance, method)
          )
        ),
        Effect.flatMap(Deferred.await(instance.exited), () => gone(instance, method))
      )

    /** A request with a deadline: a server that misses it is hung, and killed. */
    const send = (instance: Instance, method: string, params: unknown, timeoutMs: number = instance.timeouts.requestMs) =>
      request(instance, method, params).pipe(
        Effect.catchIf((e) => e === retrigger, () => Effect.fail(failed(instance.name, `${method} was cancelled by the server`))),
        deadline(instance, method, timeoutMs)
      )

    /** A request whose deadline means "busy", not "hung": cancelled and reported late, the server lives on. */
    const soft = (instance: Instance, method: string, params: unknown, ms: number): Effect.Effect<Settle.Soft, LspError> =>
      request(instance, method, params).pipe(
        Effect.map((value): Settle.Soft => ({ _tag: "Reply", value })),
        Effect.catchIf((e) => e === retrigger, () => Effect.succeed<Settle.Soft>({ _tag: "Retrigger" })),
        Effect.interruptible,
        Effect.timeoutTo({ duration: Duration.millis(ms), onTimeout: (): Settle.Soft => ({ _tag: "Late" }), onSuccess: (s) => s })
      )

    /** A notification, written within the request deadline (a server that stopped reading its stdin is hung). */
    const notify = (instance: Instance, method: string, params: unknown) =>
      Effect.tryPromise({
        try: () => instance.conn.sendNotification(method, params),
        catch: (cause) => failed(instance.name, `cannot send ${method}: ${instance.life.alive ? messageOf(cause) : instance.life.reason}`)
      }).pipe(deadline(instance, method, instance.timeouts.requestMs))

    /** The live instance of a server: started on first use, restarted after a crash once its back-off has passed. */
    const instanceOf = (server: Server): Effect.Effect<Instance, LspError> =>
      SynchronizedRef.modifyEffect(server.slot, (slot) =>
        Effect.gen(function* (): Effect.fn.Return<readonly [Either.Either<Instance, LspError>, Slot]> {
          if (slot.instance !== undefined && slot.instance.life.alive) return [Either.right(slot.instance), slot] as const
          const now = yield* Clock.currentTimeMillis
          let failures = slot.failures
          let failedAt = slot.failedAt
          if (slot.instance !== undefined) {
            // It died since the last use.
            yield* Scope.close(slot.instance.scope, Exit.void)
            failures = now - slot.instance.startedAt >= healthyAfterMs ? 1 : failures + 1
            failedAt = now
          }
          if (failures > 0) {
            const wait = failedAt + Math.min(o.backoffBaseMs * 2 ** (failures - 1), o.backoffMaxMs) - now
            if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          }
          const started = yield* Effect.either(start(server))
          if (Either.isLeft(started)) {
            return [started, { instance: undefined, failures: failures + 1, failedAt: yield* Clock.currentTimeMillis }] as const
          }
          return [started, { instance: started.right, failures, failedAt }] as const
        })
      ).pipe(Effect.flatMap((e) => (Either.isRight(e) ? Effect.succeed(e.right) : Effect.fail(e.left))))

    const serverFor = (path: string): Effect.Effect<Server, LspError> => {
      const server = serverOf(path)
      if (server !== undefined) return Effect.succeed(server)
      const ext = Lsp.extensionOf(path)
      return Effect.fail(
        new Unavailable({
          port: "language server",
          reason: `no language server is configured for ${ext === "" ? "files without an extension" : `${ext} files`} (minicode config lsp add ${ext || ".EXT"} --command …)`
        })
      )
    }

    const textBytes = (text: string) => Buffer.byteLength(text, "utf8")

    /** Opens (or updates) the document for the duration of `use`; closes it when its last user is done. */
    const withDocument = <A, E>(
      instance: Instance,
      doc: LspDocument,
      use: (uri: string, version: number) => Effect.Effect<A, E>,
      options: { readonly forceChange?: boolean } = {}
    ): Effect.Effect<A, E | LspError> => {
      const uri = Lsp.fileUri(doc.path)
      if (textBytes(doc.text) > o.maxDocumentBytes) {
        return Effect.fail(failed(instance.name, `${doc.path} is over ${o.maxDocumentBytes} bytes; not sent to the server`))
      }
      const acquire = SynchronizedRef.modifyEffect(instance.docs, (docs) =>
        Effect.gen(function* () {
          const current = docs.open.get(uri)
          const version = (docs.last.get(uri) ?? 0) + 1
          const last = new Map(docs.last).set(uri, version)
          if (current === undefined) {
            yield* notify(instance, "textDocument/didOpen", { textDocument: { uri, languageId: Lsp.languageId(doc.path), version, text: doc.text } })
            return [version, { open: new Map(docs.open).set(uri, { version, text: doc.text, users: 1 }), last }] as const
          }
          if (current.text !== doc.text || options.forceChange === true) {
            yield* notify(instance, "textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text: doc.text }] })
            return [version, { open: new Map(docs.open).set(uri, { version, text: doc.text, users: current.users + 1 }), last }] as const
          }
          return [current.version, { ...docs, open: new Map(docs.open).set(uri, { ...current, users: current.users + 1 }) }] as const
        })
      )
      const release = SynchronizedRef.updateEffect(instance.docs, (docs) => {
        const current = docs.open.get(uri)
        if (current === undefined) return Effect.succeed(docs)
        const open = new Map(docs.open)
        if (current.users > 1) return Effect.succeed({ ...docs, open: open.set(uri, { ...current, users: current.users - 1 }) })
        open.delete(uri)
        const closed = { ...docs, open }
        return instance.life.alive
          ? notify(instance, "textDocument/didClose", { textDocument: { uri } }).pipe(Effect.ignore, Effect.as(closed))
          : Effect.succeed(closed)
      })
      return Effect.acquireUseRelease(acquire, (version) => use(uri, version), () => release)
    }

    const decode = <A, I>(instance: Instance, method: string, schema: Schema.Schema<A, I>) => (reply: unknown) =>
      Schema.decodeUnknown(schema)(reply).pipe(
        Effect.mapError((e) => failed(instance.name, `unexpected reply to ${method}: ${e.message.slice(0, 300)}`))
      )

    /** Fails plainly when the server does not offer `method` (neither in its initialize reply nor registered since). */
    const offered = (instance: Instance, method: keyof typeof offerable) =>
      instance.caps.offers === undefined || instance.caps.offers.has(method) || instance.life.registered.has(method)
        ? Effect.void
        : Effect.fail(failed(instance.name, `the server does not offer ${offerable[method].what} (${method})`))

    /** Asks once the project of `doc` has loaded (or the load deadline passed: then the answer says so). */
    const asking = <A>(doc: LspDocument, method: keyof typeof offerable, body: (instance: Instance, uri: string) => Effect.Effect<A, LspError>) =>
      Effect.gen(function* () {
        const instance = yield* instanceOf(yield* serverFor(doc.path))
        yield* offered(instance, method)
        return yield* withDocument(instance, doc, (uri) =>
          Effect.gen(function* () {
            const loadingSeconds = yield* Settle.ready(channel, instance, doc)
            const result = yield* body(instance, uri)
            return { result, ...(loadingSeconds === undefined ? {} : { loadingSeconds }) }
          })
        )
      })
    const ask = <A, I>(doc: LspDocument, method: keyof typeof offerable, params: (uri: string) => unknown, schema: Schema.Schema<A, I>) =>
      asking(doc, method, (instance, uri) => send(instance, method, params(uri)).pipe(Effect.flatMap(decode(instance, method, schema))))

    /** Prepared items go back as the server sent them; each one's calls are asked in turn. */
    const callHierarchy = (doc: LspDocument, at: Lsp.ZeroPosition, direction: CallHierarchy.Direction) =>
      asking(doc, "textDocument/prepareCallHierarchy", (instance, uri) =>
        Effect.gen(function* () {
          const prepare = "textDocument/prepareCallHierarchy"
          const raw = (yield* send(instance, prepare, { textDocument: { uri }, position: position(at) }).pipe(Effect.flatMap(decode(instance, prepare, CallHierarchy.Prepared)))) ?? []
          const items = yield* Effect.forEach(raw, (r) => Effect.map(decode(instance, prepare, CallHierarchy.Item)(r), (item) => ({ raw: r, item })))
          const method = direction === "incoming" ? "callHierarchy/incomingCalls" : "callHierarchy/outgoingCalls"
          const calls = yield* Effect.forEach(items, ({ raw: item, item: asked }) =>
            send(instance, method, { item }).pipe(
              Effect.flatMap(decode(instance, method, CallHierarchy.Reply)),
              Effect.map((reply) => CallHierarchy.callsOf(direction, asked, reply))
            )
          )
          const value: CallHierarchy.Calls = { items: items.map((i) => i.item), calls: calls.flat() }
          return value
        })
      )

    /** Asks at once: a question about one file's own text (its outline) needs no project. */
    const askNow = <A, I>(doc: LspDocument, method: keyof typeof offerable, params: (uri: string) => unknown, schema: Schema.Schema<A, I>) =>
      Effect.gen(function* () {
        const instance = yield* instanceOf(yield* serverFor(doc.path))
        yield* offered(instance, method)
        return yield* withDocument(instance, doc, (uri) => send(instance, method, params(uri)).pipe(Effect.flatMap(decode(instance, method, schema))))
      })

    const position = (at: Lsp.ZeroPosition) => ({ line: at.line, character: at.character })

    /**
     * The barrier: the number of reports seen when the server answered a request sent after our notifications
     * (`answered: false` when it did not within 2 s: the count then, and the server may be hung).
     */
    const barrier = (instance: Instance) =>
      Effect.async<number>((resume) => {
        const seen = () => resume(Effect.succeed(instance.life.seq))
        instance.conn.sendRequest("$/minicode/barrier").then(seen, seen)
      }).pipe(
        Effect.timeoutTo({
          duration: Duration.millis(Math.min(2000, instance.timeouts.requestMs)),
          onTimeout: () => ({ mark: instance.life.seq, answered: false }),
          onSuccess: (mark) => ({ mark, answered: true })
        })
      )

    const channel: Settle.Channel = { soft, notify, withDocument, barrier, failed, settleMs: o.settleMs }

    const diagnostics = (doc: LspDocument, opts: { readonly changed?: boolean } = {}) =>
      Effect.gen(function* () {
        const server = yield* serverFor(doc.path)
        // After a write, a server killed as hung is not started again (an lsp_* call does that): said in full once.
        const hung = opts.changed === true ? yield* Ref.getAndUpdate(server.hung, (h) => (h === undefined ? h : { ...h, told: true })) : undefined
        if (hung !== undefined) {
          return yield* Effect.fail(
            failed(
              server.info.name,
              hung.told
                ? "skipped: it hung earlier"
                : `skipped: it hung earlier (${hung.reason}); writes no longer wait on it until an lsp_* call starts it again and it answers`
            )
          )
        }
        const instance = yield* instanceOf(server)
        return yield* Settle.diagnostics(channel, instance, doc, opts.changed === true)
      })

    const anchorsByServer = (anchors: ReadonlyArray<LspDocument>) => {
      const chosen = new Map<Server, LspDocument>()
      for (const a of anchors) {
        const s = serverOf(a.path)
        if (s !== undefined && !chosen.has(s)) chosen.set(s, a)
      }
      return [...chosen.entries()]
    }

    const workspaceSymbols = (query: string, anchors: ReadonlyArray<LspDocument>) =>
      Effect.gen(function* () {
        const targets = anchorsByServer(anchors)
        if (targets.length === 0) {
          return yield* new Unavailable({ port: "language server", reason: "no file of the workspace has a configured language server (minicode config lsp list)" })
        }
        const results = yield* Effect.forEach(
          targets,
          ([server, anchor]) =>
            Effect.either(
              Effect.gen(function* () {
                const instance = yield* instanceOf(server)
                yield* offered(instance, "workspace/symbol")
                return yield* withDocument(instance, anchor, () =>
                  Effect.gen(function* () {
                    const loading = yield* Settle.ready(channel, instance, anchor)
                    const found = yield* send(instance, "workspace/symbol", { query }).pipe(Effect.flatMap(decode(instance, "workspace/symbol", Lsp.WorkspaceSymbols)))
                    return { found: found ?? [], loading }
                  })
                )
              })
            ),
          { concurrency: "unbounded" }
        )
        const ok = results.flatMap((r) => (Either.isRight(r) ? [r.right] : []))
        const firstError = results.find(Either.isLeft)
        if (ok.length === 0 && firstError !== undefined) return yield* Effect.fail(firstError.left)
        const loading = ok.flatMap((r) => (r.loading === undefined ? [] : [r.loading]))
        return { result: ok.flatMap((r) => r.found), ...(loading.length === 0 ? {} : { loadingSeconds: Math.max(...loading) }) }
      })

    const transport = LspTransport.of({
      servers: servers.map((s) => s.info),
      serverFor: (path) => serverOf(path)?.info,
      diagnostics,
      definition: (doc, at) =>
        ask(doc, "textDocument/definition", (uri) => ({ textDocument: { uri }, position: position(at) }), Lsp.Locations),
      references: (doc, at, includeDeclaration) =>
        ask(
          doc,
          "textDocument/references",
          (uri) => ({ textDocument: { uri }, position: position(at), context: { includeDeclaration } }),
          Lsp.Locations
        ),
      implementation: (doc, at) =>
        ask(doc, "textDocument/implementation", (uri) => ({ textDocument: { uri }, position: position(at) }), Lsp.Locations),
      callHierarchy,
      hover: (doc, at) => ask(doc, "textDocument/hover", (uri) => ({ textDocument: { uri }, position: position(at) }), Lsp.Hover),
      documentSymbols: (doc) =>
        askNow(doc, "textDocument/documentSymbol", (uri) => ({ textDocument: { uri } }), Lsp.DocumentSymbols).pipe(Effect.map((s) => s ?? [])),
      workspaceSymbols
    })
    /** Starts (and initialises) the server of one configuration, for doctor. */
    const warm = (info: LspServerInfo) => {
      const server = servers.find((s) => s.info === info)
      return server === undefined ? Effect.void : Effect.asVoid(instanceOf(server))
    }
    return { transport, warm }
  })

export const make = (options: Options): Effect.Effect<typeof LspTransport.Service, never, Scope.Scope> =>
  Effect.map(build(options), (b) => b.transport)

export const layer = (options: Options): Layer.Layer<LspTransport> => Layer.scoped(LspTransport, make(options))
