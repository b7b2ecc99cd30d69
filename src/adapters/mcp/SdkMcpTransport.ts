/**
 * The MCP client on @modelcontextprotocol/sdk's Client: stdio servers spawned with a scrubbed environment
 * (stderr captured, capped; killed on close) and HTTP servers over Streamable HTTP (falling back to HTTP+SSE),
 * every HTTP request through the pinned fetch. Servers connect on first use; the SDK and undici are imported
 * then, so nothing is loaded for a session that never talks to a server.
 *
 * Gaps of SDK v1.x covered here: `initialize` is never cancelled (it is sent with no SDK timeout; our own
 * deadline closes the transport instead), it is always request id 0 so no cancellable request has id 0, and a
 * 404, or a 400 about the session (the server restarted and forgot it), drops the connection, re-initialises and
 * retries once. Closing an HTTP connection sends DELETE for its session. A 401 means the server needs sign-in
 * (`minicode config mcp login ID`), never a reason to fall back to HTTP+SSE. Replies over the message cap
 * become an error for their request id.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Either, ExecutionStrategy, Layer, Scope, SynchronizedRef } from "effect"
import type { ServerEntry } from "../../domain/core/Config.js"
import { ToolFailed, ToolTimeout, Unavailable } from "../../domain/core/Errors.js"
import { type McpProgress, type McpServerListing, progressLine } from "../../domain/mcp/McpFormat.js"
import * as McpElicitation from "../../domain/mcp/McpElicitation.js"
import { singlePrefix, visible } from "../../domain/mcp/McpText.js"
import * as McpServers from "../../domain/mcp/McpServers.js"
import * as McpHeaders from "../../domain/mcp/McpHeaders.js"
import type { Launch, Launcher } from "../../ports/Launcher.js"
import { type McpError, McpTransport } from "../../ports/McpTransport.js"
import * as Progress from "../../ports/Progress.js"
import type { Resolver } from "../net/NetGuard.js"
import * as PinnedFetch from "../net/PinnedFetch.js"
import * as FileOAuthProvider from "./FileOAuthProvider.js"
import * as SdkClientRequests from "./SdkClientRequests.js"
import * as SdkMcpContent from "./SdkMcpContent.js"
import * as SdkOutputCheck from "./SdkOutputCheck.js"
import * as IssuerFetch from "./IssuerFetch.js"

export interface Options {
  readonly servers: Readonly<Record<string, ServerEntry>>
  /** Working directory of stdio servers (the workspace). */
  readonly cwd?: string
  /** The parent environment, scrubbed before a server sees it. */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly resolve?: Resolver
  /** Starts stdio servers (a server whose entry says `sandbox: true` is wrapped); default: as configured. */
  readonly launch?: Launcher
  readonly connectTimeoutMs?: number
  readonly callTimeoutMs?: number
  readonly maxMessageBytes?: number
  readonly stderrBytes?: number
  /** Who answers a server's elicitation (default: declined). `mcp serve` can pass one that asks its own client. */
  readonly elicit?: McpElicitation.Elicit
  /** Progress of running calls (a progressToken is sent with every call; progress also resets its time-out). */
  readonly onProgress?: (progress: McpProgress) => void
  /** The config folder: a server signed in with `config mcp login` has its tokens under it (mcp-auth/ID.json). */
  readonly authDir?: string
  /** The root offered to servers that ask (roots/list); default: `cwd`. */
  readonly root?: string
  /**
   * What the sandbox of a `sandbox: true` stdio server is made from (app/LspRenewal.ts `viewOf`): bwrap fixes its
   * masks when the server starts, so a server started from another view (a `.env` made since, a secret replaced by a
   * rename) is closed and started again, with a fresh profile, before its next request.
   */
  readonly sandboxView?: Effect.Effect<string>
}

const sdkModules = Effect.promise(() =>
  Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
    import("@modelcontextprotocol/sdk/validation/ajv")
  ]).then(([client, stdio, http, sse, types, auth, validation]) => ({ client, stdio, http, sse, types, auth, validation }))
)
type Sdk = Effect.Effect.Success<typeof sdkModules>

interface Connection {
  readonly client: Client
  readonly kind: "stdio" | "http"
  /** The Streamable HTTP transport itself (under the message cap's wrapper): its session is ended on close. */
  readonly streamable?: StreamableHTTPClientTransport
  /** The sandbox view a sandboxed stdio server was started from (see `Options.sandboxView`). */
  readonly view?: string
  /** Set by the transport's close: a dead server is reconnected on next use. */
  readonly state: {
    alive: boolean
    stderr: string
    readonly log: Array<string>
    readonly taskOnly: Set<string>
    /** The listed tools' output schemas, as validators (undefined until the tools were listed on this connection). */
    outputs: SdkOutputCheck.Validators | undefined
  }
}

/** Closes a connection; an HTTP session is ended first (DELETE), so the server can free it. */
const closeConnection = async (conn: Connection) => {
  if (conn.streamable?.sessionId !== undefined) await conn.streamable.terminateSession().catch(() => undefined)
  await conn.client.close().catch(() => undefined)
}

interface SdkFailure {
  readonly _tag: "SdkFailure"
  readonly cause: unknown
  readonly conn: Connection
  readonly m: Sdk
}

const jsonSize = (m: JSONRPCMessage) => JSON.stringify(m).length

/** Whether a transport error is the pinned fetch cutting a reply stream for its size (an SSE event over the cap). */
const cutForSize = (error: unknown): boolean => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (/exceeds \d+ bytes/.test(e.message)) return true
  }
  return false
}

/**
 * Wraps a transport so one oversized message cannot reach the client: a reply becomes an error for its id. A reply
 * the HTTP wire cut for its size (an SSE event over the cap: its id is never read) fails every request in flight on
 * the connection at once, instead of leaving them to their time-out (120 s).
 */
const capMessages = (inner: Transport, max: number): Transport => {
  const inFlight = new Set<string | number>()
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => {
      if ("id" in message && "method" in message) inFlight.add(message.id)
      return inner.send(message, options)
    },
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version)
  }
  Object.defineProperty(outer, "sessionId", { get: () => inner.sessionId, enumerable: true })
  const reply = (message: JSONRPCMessage, extra?: Parameters<NonNullable<Transport["onmessage"]>>[1]) => {
    if ("id" in message && message.id !== undefined && ("result" in message || "error" in message)) inFlight.delete(message.id)
    outer.onmessage?.(message, extra)
  }
  inner.onclose = () => outer.onclose?.()
  inner.onerror = (error) => {
    outer.onerror?.(error)
    if (!cutForSize(error)) return
    for (const id of [...inFlight]) reply({ jsonrpc: "2.0", id, error: { code: -32099, message: `a reply over the ${max}-byte cap was cut off; dropped` } })
  }
  inner.onmessage = (message, extra) => {
    const size = jsonSize(message)
    if (size <= max) return reply(message, extra)
    if ("id" in message && ("result" in message || "error" in message)) {
      return reply({ jsonrpc: "2.0", id: message.id, error: { code: -32099, message: `the reply is ${size} bytes, over the ${max}-byte cap; dropped` } }, extra)
    }
    outer.onerror?.(new Error(`dropped a ${size}-byte message (cap ${max})`))
  }
  return outer
}

/** A foreign error as one line of text: its cause appended, the SDK's doubled prefix said once, controls visible. */
const messageOf = (cause: unknown): string => {
  if (!(cause instanceof Error)) return visible(String(cause))
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return visible(singlePrefix(`${cause.message}${inner}`))
}

const needsSignIn = (id: string, scope: string | undefined) =>
  `this server needs sign-in: run \`minicode config mcp login ${id}\`${scope === undefined ? "" : ` (it asks for scope "${visible(scope)}", which the sign-in will request)`}`

const logTail = (log: ReadonlyArray<string>, lines = 5) => (log.length === 0 ? "" : `\nlast server log lines:\n${log.slice(-lines).map((l) => `  ${visible(l)}`).join("\n")}`)

/** Each POST carries MCP's standard request headers (`McpHeaders`: Mcp-Method, and Mcp-Name where the method names one). */
const withStandardHeaders =
  (fetch: PinnedFetch.FetchLike): PinnedFetch.FetchLike =>
  (input, init) => {
    if (init?.method !== "POST" || typeof init.body !== "string") return fetch(input, init)
    const headers = new Headers(init.headers)
    for (const [name, value] of Object.entries(McpHeaders.standardHeaders(init.body))) headers.set(name, value)
    return fetch(input, { ...init, headers })
  }

export const defaults = { connectTimeoutMs: 30_000, callTimeoutMs: 120_000, maxMessageBytes: 4 * 1024 * 1024, stderrBytes: 8 * 1024 }

export const make = (options: Options): Effect.Effect<typeof McpTransport.Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const outer = yield* Effect.scope
    // Fetches and launches live in a scope closed after the connections (finalizers run last-added first), so
    // closing a connection can still send its session's DELETE.
    const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
    const sdk = yield* Effect.cached(sdkModules)
    const connectTimeoutMs = options.connectTimeoutMs ?? defaults.connectTimeoutMs
    const callTimeoutMs = options.callTimeoutMs ?? defaults.callTimeoutMs
    const maxMessageBytes = options.maxMessageBytes ?? defaults.maxMessageBytes
    const stderrBytes = options.stderrBytes ?? defaults.stderrBytes
    const fetchFor = (allowPrivate: boolean) =>
      PinnedFetch.make({
        allowPrivate,
        redirects: "error",
        maxBodyBytes: maxMessageBytes + 1024,
        maxEventBytes: maxMessageBytes + 1024,
        ...(options.resolve === undefined ? {} : { resolve: options.resolve })
      }).pipe(Scope.extend(scope))
    const publicFetch = yield* Effect.cached(fetchFor(false))
    const privateFetch = yield* Effect.cached(fetchFor(true))
    const connections = yield* SynchronizedRef.make(new Map<string, Connection>())

    /** The scope a session of `id` was last asked to sign in for (see FileOAuthProvider). */
    const wantedScope = (id: string) => {
      const url = Object.hasOwn(options.servers, id) ? options.servers[id]?.url : undefined
      return options.authDir === undefined || url === undefined ? undefined : FileOAuthProvider.wantedScope(FileOAuthProvider.fileFor(options.authDir, id), url)
    }
    const launcher: Launcher = options.launch ?? ((r) => Effect.succeed({ argv: r.argv, env: r.env }))
    const open = (m: Sdk, id: string, entry: ServerEntry, fetch: PinnedFetch.FetchLike | undefined) =>
      Effect.flatMap(
        entry.url === undefined
          ? launcher({
              argv: [entry.command ?? "", ...(entry.args ?? [])],
              env: McpServers.scrubEnv(options.env ?? {}, entry.env),
              sandbox: entry.sandbox === true,
              network: false
            }).pipe(Scope.extend(scope))
          : Effect.succeed(undefined),
        (launch) => openWith(m, id, entry, fetch, launch)
      )
    const openWith = (m: Sdk, id: string, entry: ServerEntry, fetch: PinnedFetch.FetchLike | undefined, launch: Launch | undefined) =>
      Effect.tryPromise({
        try: async (signal): Promise<Connection> => {
          const state: Connection["state"] = { alive: true, stderr: "", log: new Array<string>(), taskOnly: new Set<string>(), outputs: undefined }
          const kind = entry.url === undefined ? "stdio" : "http"
          const attempt = async (transport: Transport): Promise<Client> => {
            const elicit = options.elicit ?? McpElicitation.decline
            const modes = McpElicitation.modesOf(elicit)
            const client = new m.client.Client({ name: "minicode", version: "0.1.0" }, { capabilities: SdkClientRequests.capabilitiesFor(modes) })
            SdkClientRequests.install(client, m.types, { server: id, root: options.root ?? options.cwd, elicit, modes, log: state.log })
            const wrapped = capMessages(transport, maxMessageBytes)
            let timer: NodeJS.Timeout | undefined
            const abort = () => void transport.close().catch(() => undefined)
            signal.addEventListener("abort", abort)
            try {
              // No SDK timeout on initialize (its timeout path would cancel initialize, which the spec forbids):
              // our deadline closes the transport instead.
              await Promise.race([
                client.connect(wrapped, { timeout: 2 ** 31 - 1 }),
                new Promise<never>((_, reject) => {
                  timer = setTimeout(() => reject(new Error(`no initialize reply within ${connectTimeoutMs} ms`)), connectTimeoutMs)
                })
              ])
            } catch (error) {
              await transport.close().catch(() => undefined)
              throw error
            } finally {
              clearTimeout(timer)
              signal.removeEventListener("abort", abort)
            }
            const previous = client.onclose
            client.onclose = () => {
              state.alive = false
              previous?.()
            }
            return client
          }
          if (entry.url === undefined) {
            const transport = new m.stdio.StdioClientTransport({
              command: launch?.argv[0] ?? entry.command ?? "",
              args: launch === undefined ? [...(entry.args ?? [])] : launch.argv.slice(1),
              env: launch === undefined ? McpServers.scrubEnv(options.env ?? {}, entry.env) : { ...launch.env },
              stderr: "pipe",
              ...(options.cwd === undefined ? {} : { cwd: options.cwd })
            })
            transport.stderr?.on("data", (chunk: Buffer | string) => {
              state.stderr = (state.stderr + chunk.toString()).slice(-stderrBytes)
            })
            try {
              return { client: await attempt(transport), kind, state }
            } catch (error) {
              // A server that exits at start says why on stderr ("boom: missing API_KEY"): show it, not just "Connection closed".
              for (let i = 0; i < 20 && state.stderr.trim() === ""; i++) await new Promise((r) => setTimeout(r, 25))
              const said = state.stderr.trim()
              throw said === "" ? error : new Error(`${messageOf(error)} (server stderr: ${visible(said.slice(-1000))})`)
            }
          }
          const url = new URL(entry.url)
          const requestInit = { headers: { ...entry.headers } }
          // Signed in (config mcp login): the SDK sends the token, refreshes it, and steps up scope on a 403.
          const authFile = options.authDir === undefined ? undefined : FileOAuthProvider.fileFor(options.authDir, id)
          // A session cannot sign in itself: when the SDK would send the user to sign in again (expired tokens, a
          // 403 asking for more scope), the scope asked for is kept for the next `config mcp login`.
          const serverUrl = entry.url
          const authProvider =
            authFile !== undefined && FileOAuthProvider.hasTokens(authFile, serverUrl)
              ? FileOAuthProvider.make({ file: authFile, serverUrl, onRedirect: (to) => FileOAuthProvider.setWantedScope(authFile, serverUrl, to.searchParams.get("scope") ?? undefined) })
              : undefined
          // With tokens, the SDK may discover the authorization server again (a refresh, a step-up): its metadata is
          // checked as at sign-in (IssuerFetch), so a token is never sent where another issuer's metadata points.
          const checked = authProvider === undefined ? fetch : IssuerFetch.make(fetch ?? ((u, i) => globalThis.fetch(u, i))).fetch
          const sent = checked === undefined ? undefined : withStandardHeaders(checked)
          const common = { requestInit, ...(sent === undefined ? {} : { fetch: sent }), ...(authProvider === undefined ? {} : { authProvider }) }
          try {
            const streamable = new m.http.StreamableHTTPClientTransport(url, { ...common, reconnectionOptions: { maxRetries: 2, initialReconnectionDelay: 500, maxReconnectionDelay: 5_000, reconnectionDelayGrowFactor: 2 } })
            return { client: await attempt(streamable), kind, state, streamable }
          } catch (error) {
            // Servers of the older HTTP+SSE transport answer the POST with 4xx: fall back to it.
            if ((error instanceof m.http.StreamableHTTPError && error.code === 401) || error instanceof m.auth.UnauthorizedError) throw new Error(needsSignIn(id, wantedScope(id)))
            if (!(error instanceof m.http.StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500) throw error
            return { client: await attempt(new m.sse.SSEClientTransport(url, common)), kind, state }
          }
        },
        catch: (cause) => new ToolFailed({ tool: id, reason: `cannot connect to MCP server ${id}: ${messageOf(cause)}` })
      })

    const connection = (id: string): Effect.Effect<{ readonly sdk: Sdk; readonly conn: Connection }, McpError> =>
      Effect.gen(function* () {
        const entry = options.servers[id]
        if (entry === undefined || !Object.hasOwn(options.servers, id)) {
          return yield* new Unavailable({ port: `MCP server ${id}`, reason: `no MCP server "${id}" is configured (minicode config mcp list)` })
        }
        const kind = McpServers.kindOf(entry)
        if (Either.isLeft(kind)) return yield* new ToolFailed({ tool: id, reason: kind.left })
        const m = yield* sdk
        // Taken before the launch, so the profile made next is at least as fresh as the view it is recorded under.
        const view = kind.right === "stdio" && entry.sandbox === true && options.sandboxView !== undefined ? yield* options.sandboxView : undefined
        const usable = (c: Connection | undefined) => c !== undefined && c.state.alive && c.view === view
        // A live connection is taken without the lock; opening one is serialised.
        const live = (yield* SynchronizedRef.get(connections)).get(id)
        if (live !== undefined && usable(live)) return { sdk: m, conn: live }
        const conn = yield* SynchronizedRef.modifyEffect(connections, (map) => {
          const found = map.get(id)
          if (found !== undefined && usable(found)) return Effect.succeed([found, map] as const)
          return Effect.gen(function* () {
            // A sandboxed server whose view is stale still runs: it goes before its successor starts.
            if (found !== undefined && found.state.alive) {
              found.state.alive = false
              yield* Effect.promise(() => closeConnection(found))
            }
            const fetch = kind.right === "http" ? yield* (entry.allowPrivate === true ? privateFetch : publicFetch) : undefined
            const opened: Connection = { ...(yield* open(m, id, entry, fetch)), ...(view === undefined ? {} : { view }) }
            return [opened, new Map(map).set(id, opened)] as const
          })
        })
        return { sdk: m, conn }
      })

    yield* Effect.addFinalizer(() =>
      SynchronizedRef.get(connections).pipe(
        Effect.flatMap((map) =>
          Effect.forEach([...map.values()], (c) => Effect.promise(() => closeConnection(c)), { concurrency: "unbounded", discard: true })
        )
      )
    )

    /** A server's own time-out (`timeout` seconds in its entry), else the default: reset by each progress notification. */
    const timeoutOf = (id: string) => {
      const seconds = Object.hasOwn(options.servers, id) ? options.servers[id]?.timeout : undefined
      return seconds === undefined ? callTimeoutMs : seconds * 1000
    }

    /** One request on a server's connection: cancellable (interrupt → notifications/cancelled), re-initialised once after a 404. */
    const request = <A>(id: string, label: string, send: (client: Client, signal: AbortSignal, timeout: number) => Promise<A>): Effect.Effect<A, McpError> => {
      const timeoutMs = timeoutOf(id)
      const once = Effect.gen(function* () {
        const { sdk: m, conn } = yield* connection(id)
        return yield* Effect.tryPromise({
          try: (signal) => send(conn.client, signal, timeoutMs),
          catch: (cause): SdkFailure => ({ _tag: "SdkFailure", cause, conn, m })
        })
      })
      const translate = (failure: SdkFailure): McpError => {
        const { cause, conn, m } = failure
        if (cause instanceof m.types.McpError && cause.code === m.types.ErrorCode.RequestTimeout) return new ToolTimeout({ tool: label, millis: timeoutMs })
        if ((cause instanceof m.http.StreamableHTTPError && cause.code === 401) || cause instanceof m.auth.UnauthorizedError) return new ToolFailed({ tool: label, reason: needsSignIn(id, wantedScope(id)) })
        if (cause instanceof m.types.McpError && cause.code === McpElicitation.urlRequiredCode) {
          // The server's browser step: its pages, attributed, so the person can finish the flow and call again.
          const steps = McpElicitation.urlSteps(id, cause.data)
          if (steps.length > 0) return new ToolFailed({ tool: label, reason: `${messageOf(cause)}: ${steps.join("; ")}` })
        }
        const stderr = !conn.state.alive && conn.state.stderr.trim() !== "" ? ` (server stderr: ${visible(conn.state.stderr.trim().slice(-500))})` : ""
        return new ToolFailed({ tool: label, reason: `${messageOf(cause)}${!conn.state.alive ? "; the server closed the connection" : ""}${stderr}${logTail(conn.state.log)}` })
      }
      const expired = (e: McpError | SdkFailure): e is SdkFailure =>
        e._tag === "SdkFailure" &&
        e.cause instanceof e.m.http.StreamableHTTPError &&
        (e.cause.code === 404 || (e.cause.code === 400 && /session/i.test(e.cause.message)))
      return once.pipe(
        Effect.catchIf(
          expired,
          (f) => {
            f.conn.state.alive = false
            return Effect.promise(() => closeConnection(f.conn)).pipe(Effect.zipRight(once))
          }
        ),
        Effect.mapError((e) => (e._tag === "SdkFailure" ? translate(e) : e))
      )
    }

    /** Pages of one list method (at most 20). */
    const pages = async <A>(fetch: (cursor: string | undefined) => Promise<{ readonly items: ReadonlyArray<A>; readonly next: string | undefined }>) => {
      const items: Array<A> = []
      let cursor: string | undefined
      for (let page = 0; page < 20; page++) {
        const got = await fetch(cursor)
        items.push(...got.items)
        cursor = got.next
        if (cursor === undefined) break
      }
      return items
    }
    const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor })

    /** The server's tools; what a call needs of them is kept on the connection (task-only tools, output schemas). */
    const listTools = (id: string) =>
      Effect.gen(function* () {
        const m = yield* sdk
        const { conn } = yield* connection(id)
        const tools = yield* request(id, `${id} tools/list`, (client, signal, timeout) =>
          pages((cursor) => client.request({ method: "tools/list", params: params(cursor) }, m.types.ListToolsResultSchema, { signal, timeout }).then((got) => ({ items: got.tools.map(SdkMcpContent.toolInfo), next: got.nextCursor })))
        )
        conn.state.taskOnly.clear()
        for (const t of tools) if (t.taskSupport === "required") conn.state.taskOnly.add(t.name)
        conn.state.outputs = SdkOutputCheck.validators(m.validation, tools)
        return tools
      })

    /**
     * Tools, then what the server declared (resources and templates, prompts): an optional list that fails is a
     * note beside the tools, never a reason to hide them.
     */
    const listOne = (id: string): Effect.Effect<McpServerListing, never> =>
      Effect.gen(function* () {
        const m = yield* sdk
        const { conn } = yield* connection(id)
        const declared = conn.client.getServerCapabilities() ?? {}
        const notes: Array<string> = []
        const optional = <A>(method: string, send: (client: Client, signal: AbortSignal, timeout: number) => Promise<ReadonlyArray<A>>) =>
          request(id, `${id} ${method}`, send).pipe(
            Effect.catchAll((e) => Effect.sync((): ReadonlyArray<A> => (notes.push(e.message), [])))
          )
        const tools = yield* listTools(id)
        const resources = declared.resources === undefined ? [] : yield* optional("resources/list", (client, signal, timeout) =>
          pages((cursor) => client.request({ method: "resources/list", params: params(cursor) }, m.types.ListResourcesResultSchema, { signal, timeout }).then((got) => ({ items: got.resources.map(SdkMcpContent.resourceInfo), next: got.nextCursor })))
        )
        const templates = declared.resources === undefined ? [] : yield* optional("resources/templates/list", (client, signal, timeout) =>
          pages((cursor) => client.request({ method: "resources/templates/list", params: params(cursor) }, m.types.ListResourceTemplatesResultSchema, { signal, timeout }).then((got) => ({ items: got.resourceTemplates.map(SdkMcpContent.templateInfo), next: got.nextCursor }))).catch(
            // Templates are optional within resources: a server without them answers "Method not found".
            (cause: unknown) => (cause instanceof m.types.McpError && cause.code === m.types.ErrorCode.MethodNotFound ? [] : Promise.reject(cause))
          )
        )
        const prompts = declared.prompts === undefined ? [] : yield* optional("prompts/list", (client, signal, timeout) =>
          pages((cursor) =>
            client.request({ method: "prompts/list", params: params(cursor) }, m.types.ListPromptsResultSchema, { signal, timeout }).then((got) => ({
              items: got.prompts.map((p) => ({ name: p.name, description: p.description ?? "", arguments: (p.arguments ?? []).map((a) => (a.required === true ? `${a.name}*` : a.name)) })),
              next: got.nextCursor
            }))
          )
        )
        return { server: id, tools, resources, templates, prompts, ...(notes.length > 0 ? { notes } : {}) }
      }).pipe(Effect.catchAll((e) => Effect.succeed<McpServerListing>({ server: id, error: e.message, tools: [], resources: [], prompts: [] })))

    /**
     * The tools listed once per connection before its first call (as the SDK's callTool needs listTools first): their
     * output schemas judge the results, and task-only tools are known. A listing that fails leaves both unknown.
     */
    const listedOnce = (server: string) =>
      Effect.flatMap(SynchronizedRef.get(connections), (map) => {
        const conn = map.get(server)
        return conn !== undefined && conn.state.alive && conn.state.outputs !== undefined ? Effect.void : Effect.ignore(listTools(server))
      })
    const outputsOf = (server: string) =>
      Effect.map(SynchronizedRef.get(connections), (map): SdkOutputCheck.Validators => map.get(server)?.state.outputs ?? new Map())

    /** Fails a call of a tool the server listed as task-only (execution.taskSupport "required"). */
    const taskOnly = (server: string, tool: string) =>
      Effect.flatMap(sdk, (m) =>
        Effect.flatMap(SynchronizedRef.get(connections), (map) =>
          map.get(server)?.state.taskOnly.has(tool) === true
            ? Effect.fail(new ToolFailed({ tool: `${server}.${tool}`, reason: "this tool is task-only (execution.taskSupport: required): it runs only as an MCP task, which minicode's client does not do" }))
            : Effect.succeed(m)
        )
      )

    return McpTransport.of({
      servers: Object.keys(options.servers),
      list: (server) =>
        server === undefined
          ? Effect.forEach(Object.keys(options.servers), listOne, { concurrency: "unbounded" })
          : Object.hasOwn(options.servers, server)
            ? Effect.map(listOne(server), (one) => [one])
            : Effect.fail(new Unavailable({ port: `MCP server ${server}`, reason: `no MCP server "${server}" is configured` })),
      call: (server, tool, args) =>
        Effect.flatMap(Effect.zip(Effect.zipRight(listedOnce(server), taskOnly(server, tool)), Progress.current), ([m, listener]) =>
          request(`${server}`, `${server}.${tool}`, (client, signal, timeout) =>
            client.request({ method: "tools/call", params: { name: tool, arguments: { ...args } } }, m.types.CallToolResultSchema, {
              signal,
              timeout,
              resetTimeoutOnProgress: true,
              onprogress: (p) => {
                const progress: McpProgress = { server, tool, progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message === undefined ? {} : { message: p.message }) }
                options.onProgress?.(progress)
                // Under `mcp serve`, the running call's listener: its client sees the upstream server's progress.
                if (listener.watched) listener.note(progressLine(progress))
              }
            })
          )
        ).pipe(
          Effect.map(SdkMcpContent.callResult),
          Effect.flatMap((content) => Effect.map(outputsOf(server), (outputs) => SdkOutputCheck.check(outputs, server, tool, content))),
          // A failed call carries the server's last log lines: often the why.
          Effect.flatMap((content) =>
            !content.isError
              ? Effect.succeed(content)
              : connection(server).pipe(
                  Effect.map(({ conn }) => (conn.state.log.length === 0 ? content : { ...content, blocks: [...content.blocks, { _tag: "Text" as const, text: logTail(conn.state.log).trimStart() }] })),
                  Effect.orElseSucceed(() => content)
                )
          )
        ),
      read: (server, uri) =>
        Effect.flatMap(sdk, (m) =>
          request(server, `${server} resources/read`, (client, signal, timeout) =>
            client.request({ method: "resources/read", params: { uri } }, m.types.ReadResourceResultSchema, { signal, timeout })
          )
        ).pipe(Effect.map(SdkMcpContent.readResult)),
      prompt: (server, name, args) =>
        Effect.flatMap(sdk, (m) =>
          request(server, `${server} prompts/get`, (client, signal, timeout) =>
            client.request({ method: "prompts/get", params: { name, arguments: { ...args } } }, m.types.GetPromptResultSchema, { signal, timeout })
          )
        ).pipe(Effect.map(SdkMcpContent.promptResult))
    })
  })

export const layer = (options: Options) => Layer.scoped(McpTransport, make(options))
