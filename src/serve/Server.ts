/**
 * `minicode mcp serve`: the tool chain as an MCP server, on the transport the app wires (stdio).
 *
 * The core (`makeCore`) is SDK-free and owns every call: its rules are pure (`Protocol`: admission, the in-flight
 * cap, refusals, identities, verdicts; `ReplayTable`: idempotency by JSON-RPC request id, where concurrent
 * duplicates share one execution, a retry replays the stored result, the same id with other arguments is a
 * conflict); here they are kept in Refs and run: cancellation (interrupting a call interrupts exactly its
 * execution), the journal's answer after a restart (only for a retry of a call a killed run never answered, see
 * `McpRetry`), scrubbed errors and capped output. `serve` loads the SDK lazily, bridges its callbacks to the core
 * (through the `EffectRunner` it is given), and drains on end of input or SIGTERM.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Clock, Context, Deferred, Effect, Either, ExecutionStrategy, Exit, Fiber, Layer, Option, Queue, Ref, Scope } from "effect"
import { ToolFailed, type ToolError } from "../domain/core/Errors.js"
import * as Framing from "../domain/mcp/JsonRpcFraming.js"
import * as Guide from "../domain/mcp/McpGuide.js"
import * as Scopes from "../domain/mcp/McpScopes.js"
import * as Remedy from "../domain/core/Remedy.js"
import { scrub } from "../domain/core/Scrub.js"
import type { ToolName } from "../domain/core/Tools.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import { capText } from "../domain/core/Truncate.js"
import type { Approver, ElicitationChannel } from "../ports/Approver.js"
import { EffectRunner } from "../ports/EffectRunner.js"
import type { LogLevel } from "../ports/Progress.js"
import { Journal, type JournalError, type JournalRecord } from "../ports/Journal.js"
import { Session } from "../ports/Session.js"
import { type Invocation, ToolExecutor, type ToolOutput } from "../ports/ToolExecutor.js"
import * as Kernel from "../kernel/Kernel.js"
import * as Lazy from "../kernel/Lazy.js"
import * as CallProgress from "./CallProgress.js"
import * as Drain from "./Drain.js"
import { runTurn } from "../kernel/RunTurn.js"
import * as Catalog from "./Catalog.js"
import * as McpRetry from "./McpRetry.js"
import * as P from "./Protocol.js"
import * as ReplayTable from "./ReplayTable.js"
import { describeTool, type ToolDescriptor } from "./ToolList.js"
import { canonicalArgs as canonicalCall } from "../domain/core/Canonical.js"

export { describeTool, type ToolDescriptor }
export type { Outcome, TextResult, WireId } from "./Protocol.js"
export { requestKey } from "./Protocol.js"

type Outcome = P.Outcome
type WireId = P.WireId

/** The session of `mcp serve`'s runs: a server run is one turn of it (`RunTurn`). */
export const sessionId = "mcp-server"

export const limits = {
  maxInFlight: 32,
  maxLineBytes: 4 * 1024 * 1024,
  /** On SIGTERM or the end of input, calls in flight get this long; then they are interrupted (see `McpDrain`). */
  drainMs: 5_000,
  /** Results kept for replay, by total size; the oldest finished ones go first (the journal still answers for writes). */
  replayBytes: 8 * 1024 * 1024,
  replayEntries: 10_000,
  /**
   * Read-only results are kept whole only while they are this recent (by size); older ones keep a fingerprint, and a
   * retry runs the read again and answers only if it gives the very same result. Kept whole for long, every read's
   * result outlived the young generation and was copied into the old one: under a stream of reads, that copying
   * and the old-generation collections it caused cost more than the reads.
   */
  replayWholeReadBytes: 256 * 1024,
  /** After writes, the journal's housekeeping waits for this long with nothing in flight and nothing new admitted. */
  quietMs: 100
}

export interface CoreConfig {
  readonly settings: Scopes.Settings
  /** Canonical workspace root, for scrubbing error messages. */
  readonly root: string
  /** A digest of a text (sha256, base64): the replay table's identities of long calls and fingerprints of results. */
  readonly hash: (text: string) => string
  readonly sessionId?: string
  readonly maxInFlight?: number
  readonly maxOutputBytes?: number
  readonly replayBytes?: number
  readonly replayEntries?: number
  readonly replayWholeReadBytes?: number
  readonly quietMs?: number
  /** How long an unanswered call of an earlier run stays a retry's (see `McpRetry`). */
  readonly retryWindowMs?: number
  /** This run's turn of the session, once it wrote (tells its records from another server's; see `McpRetry`). */
  readonly ownTurn?: Effect.Effect<Option.Option<number>>
  /** Whether the client can ask the user now (it declared elicitation): gated tools are then listed and callable. */
  readonly canAsk?: () => boolean
  /** What this run adds to a tool's static description in tools/list (sql_query: the configured connections). */
  readonly descriptions?: Partial<Record<ToolName, string>>
}

export interface Core {
  /** The tools listed to a client that cannot ask the user. */
  readonly tools: ReadonlyArray<ToolDescriptor>
  /** The tools listed now (with gated ones, once the client declared it can ask the user). */
  readonly listTools: () => ReadonlyArray<ToolDescriptor>
  /**
   * One `tools/call`. Never fails: every failure is an Outcome. Interrupting it cancels the request's execution
   * (and, for a duplicate, the execution it joined: cancellation names a request id, and they share it).
   */
  readonly call: (id: WireId, name: string, args: unknown) => Effect.Effect<Outcome>
  /**
   * A read-only tool through the whole chain, outside the request ids (no replay): what `resources/read` answers
   * with. A tool that is not a pure read is refused.
   */
  readonly read: (name: string, args: unknown) => Effect.Effect<Outcome>
  /** Refuse new calls from now on ("shutting down"). */
  readonly stopAccepting: Effect.Effect<void>
  /** Requests in flight (each execution runs in the fiber of the request that started it). */
  readonly busy: Effect.Effect<number>
  /** Interrupt every running execution (the drain deadline passed). */
  readonly cancelAll: Effect.Effect<void>
  /** Interrupt the running read-only executions (at once, when the drain starts). */
  readonly cancelReads: Effect.Effect<void>
  /**
   * Runs for the server's life (fork it in its scope): after calls that wrote, once nothing has been in flight or
   * admitted for `quietMs`, the journal's housekeeping (`Journal.idle`), so it is not done in the middle of a call.
   */
  readonly housekeeping: Effect.Effect<never>
  /**
   * The reply to request `id` was written (or the client cancelled it, so none is due): a mutating call's journal
   * records are marked answered, and a later session's same call is no retry. Never fails.
   */
  readonly replied: (id: WireId) => Effect.Effect<void>
}

type Owner = Fiber.RuntimeFiber<unknown, unknown>
type Waiter = Deferred.Deferred<Outcome>
type Entry = ReplayTable.Entry<Owner, Waiter>
type Table = ReplayTable.Table<Owner, Waiter>

export const makeCore = (config: CoreConfig): Effect.Effect<Core, never, ToolExecutor | Journal> =>
  Effect.gen(function* () {
    const chain = yield* ToolExecutor
    const journal = yield* Journal
    const session = config.sessionId ?? sessionId
    const maxInFlight = config.maxInFlight ?? limits.maxInFlight
    const maxOutputBytes = config.maxOutputBytes ?? Kernel.defaultMaxOutputBytes
    const fingerprint = (r: P.TextResult) => P.fingerprintOf(r, config.hash)
    const budget: ReplayTable.Budget = {
      replayBytes: config.replayBytes ?? limits.replayBytes,
      replayEntries: config.replayEntries ?? limits.replayEntries,
      replayWholeReadBytes: config.replayWholeReadBytes ?? limits.replayWholeReadBytes,
      fingerprint
    }
    const clean = (text: string) => scrub({ root: config.root }, text)
    const table = yield* Ref.make<Table>(ReplayTable.empty())
    const gate = yield* Ref.make<P.Gate>(P.openGate)
    const quietMs = config.quietMs ?? limits.quietMs
    /** Set when a call that wrote finishes: the journal has something to tidy at the next quiet moment. */
    const wrote = yield* Queue.sliding<void>(1)
    const listing = (settings: Scopes.Settings) => Scopes.listed(settings).map((name) => describeTool(name, settings, config.descriptions?.[name]))
    const tools = listing(config.settings)
    const askable: Scopes.Settings = { ...config.settings, askable: true }
    const askableTools = listing(askable)
    const settingsNow = () => (config.canAsk?.() === true ? askable : config.settings)
    const startedAt = yield* Clock.currentTimeMillis
    const retryWindowMs = config.retryWindowMs ?? McpRetry.windowMs
    const ownTurn: Effect.Effect<Option.Option<number> | undefined> = config.ownTurn ?? Effect.succeed(undefined)
    /**
     * Mutating calls whose outcome is made and whose reply is not yet written: wire id to journal key. Entries go
     * when the reply is written (`replied`); one whose reply never is (the client went away) goes with the process.
     */
    const awaitingReply = new Map<string, string>()

    const outcomeOf = (out: ToolOutput): Outcome => {
      const capped = capText(out.text, maxOutputBytes)
      return P.result(capped.text, out.isError === true, out.structured)
    }
    // A refusal says how to proceed with this front end's flags and config keys (`Remedy`), not the CLI's.
    const failureOf = (e: ToolError | JournalError): Outcome => P.result(clean(e._tag === "ToolDenied" ? Remedy.told(e, "serve") : e.message), true)

    /** Records the outcome (kept for replay, or dropped) and hands it to the duplicates waiting for it. */
    const finish = (wire: string, entry: Entry, outcome: Outcome, keep: boolean) =>
      Effect.flatMap(
        Ref.modify(table, (t) => ReplayTable.finish(t, wire, entry, outcome, keep, budget)),
        (waiters) => (waiters.length === 0 ? Effect.void : Effect.forEach(waiters, (w) => Deferred.succeed(w, outcome), { discard: true }))
      )

    /** The execution, in the owner's own fiber: interrupting that fiber interrupts it (a running bash is killed). */
    const execute = (id: WireId, key: string, canonical: string, inv: Invocation, mutates: boolean): Effect.Effect<Outcome> => {
      const run = Effect.map(chain.run({ ...inv, requestId: key, canonicalArgs: canonical }), outcomeOf)
      /** A record of this request's key answers it only if it is this run's or a retry's (see `McpRetry`). */
      const fromJournal = (prior: JournalRecord) =>
        Effect.flatMap(Effect.all([Clock.currentTimeMillis, ownTurn]), ([now, turn]) =>
          Effect.flatMap(
            McpRetry.answersFor(journal, prior, { startedAt, now, windowMs: retryWindowMs, ...(turn === undefined ? {} : { ownTurn: turn }) }),
            (found) => (found === "NewCall" ? run : Effect.succeed(P.journalVerdict(id, prior, found === "EarlierRun")))
          )
        )
      const once = !mutates
        ? run
        : Effect.ensuring(
            Effect.flatMap(journal.findByRequest(session, key), (prior) => (Option.isSome(prior) ? fromJournal(prior.value) : run)),
            Queue.offer(wrote, undefined)
          )
      // A failure becomes an error result, a defect a plain one (nothing internal leaks); an interruption goes on.
      return Effect.catchAllCause(once, (cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) return Effect.succeed(failureOf(failure.value))
        return Option.isSome(Cause.dieOption(cause)) ? Effect.succeed(P.internalError) : Effect.failCause(Cause.stripFailures(cause))
      })
    }

    /**
     * A retry of a read whose result was not kept whole: the read runs again, and its result is the answer only if
     * it is the very same as the first time (same fingerprint); otherwise the retry is told so.
     */
    const rerun = (id: WireId, canonical: string, inv: Invocation, kept: string): Effect.Effect<Outcome> =>
      Effect.map(execute(id, P.requestKey(id, canonical), canonical, inv, false), (again) => P.rerunVerdict(id, again, kept, fingerprint))

    /** A duplicate of a request still running: waits for its outcome; being cancelled cancels the execution. */
    const join = (id: WireId, wire: string, seq: number, owner: Owner, canonical: string, inv: Invocation): Effect.Effect<Outcome> =>
      Effect.gen(function* () {
        const waiter = yield* Deferred.make<Outcome>()
        const now = yield* Ref.modify(table, (t) => ReplayTable.join(t, wire, seq, waiter))
        switch (now._tag) {
          case "Now":
            return now.outcome
          case "Gone":
            return P.gone(id)
          case "Rerun":
            return yield* rerun(id, canonical, inv, now.fingerprint)
          case "Wait":
            // Cancellation names a request id, and duplicates share it: cancelling one cancels the execution.
            return yield* Deferred.await(waiter).pipe(Effect.onInterrupt(() => Fiber.interrupt(owner)))
        }
      })

    /**
     * The first request with an id runs the execution in its own fiber (no fork per call); duplicates wait for its
     * outcome, a retry after it finished replays it. The claim and the finaliser are set up uninterruptibly, so every
     * claimed entry is settled.
     */
    const claimAndRun = (id: WireId, wire: string, canonical: string, inv: Invocation): Effect.Effect<Outcome> => {
      const identity = P.identityOf(canonical, config.hash)
      return Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime<Outcome>((owner) =>
          Effect.flatMap(
            Ref.modify(table, (t) => ReplayTable.claim(t, wire, { identity, rerunnable: P.rerunnable(inv), owner })),
            (claim) => {
              switch (claim._tag) {
                case "Conflict":
                  return Effect.succeed(P.conflict(wire, clean))
                case "Replay":
                  return Effect.succeed(claim.outcome)
                case "Rerun":
                  return restore(rerun(id, canonical, inv, claim.fingerprint))
                case "Join":
                  return restore(join(id, wire, claim.seq, claim.owner, canonical, inv))
                case "Own": {
                  const entry = claim.entry
                  const mutates = inv.facts.mutates
                  const key = P.requestKey(id, canonical)
                  return restore(execute(id, key, canonical, inv, mutates)).pipe(
                    Effect.onExit((exit) =>
                      // Before the outcome is handed on, so before its reply can be written.
                      Effect.zipRight(
                        mutates ? Effect.sync(() => awaitingReply.set(wire, key)) : Effect.void,
                        Exit.isSuccess(exit) ? finish(wire, entry, exit.value, true) : finish(wire, entry, P.cancelledWhileRunning(id, mutates), mutates)
                      )
                    )
                  )
                }
              }
            }
          )
        )
      )
    }

    const admitted = (id: WireId, name: string, args: unknown): Effect.Effect<Outcome> =>
      Either.match(P.prepare(settingsNow(), name, args, clean), {
        onLeft: Effect.succeed,
        onRight: (inv) => claimAndRun(id, JSON.stringify(id), canonicalCall(inv.facts.call), inv)
      })

    const release = Ref.update(gate, P.release)

    const call = (id: WireId, name: string, args: unknown): Effect.Effect<Outcome> =>
      Effect.flatMap(Ref.modify(gate, (g) => P.admit(g, maxInFlight)), (admission) =>
        admission === "admitted" ? Effect.ensuring(admitted(id, name, args), release) : Effect.succeed(admission)
      )

    /** A quiet moment: nothing in flight, and nothing admitted during a whole `quietMs`. */
    const quiet = Effect.gen(function* () {
      let seen = (yield* Ref.get(gate)).admitted
      for (;;) {
        yield* Effect.sleep(quietMs)
        const g = yield* Ref.get(gate)
        // Every write that asked for this was over before it: their requests are answered by this one tidy-up.
        if (g.inFlight === 0 && g.admitted === seen) return yield* Queue.takeAll(wrote)
        seen = g.admitted
      }
    })
    const housekeeping = Effect.forever(Queue.take(wrote).pipe(Effect.zipRight(quiet), Effect.zipRight(journal.idle)))

    const replied = (id: WireId): Effect.Effect<void> =>
      Effect.suspend(() => {
        const wire = JSON.stringify(id)
        const key = awaitingReply.get(wire)
        if (key === undefined) return Effect.void
        awaitingReply.delete(wire)
        // A mark that fails leaves the record unanswered: at worst a retry after a crash is refused, never re-run.
        return Effect.ignore(journal.answered(session, key))
      })

    const read = (name: string, args: unknown): Effect.Effect<Outcome> =>
      Either.match(P.prepare(settingsNow(), name, args, clean), {
        onLeft: Effect.succeed,
        onRight: (inv) =>
          !P.rerunnable(inv)
            ? Effect.succeed(P.result(`${P.shortName(name)} is not a read`, true))
            : chain.run(inv).pipe(
                Effect.map(outcomeOf),
                Effect.catchAll((e) => Effect.succeed(failureOf(e))),
                Effect.catchAllDefect(() => Effect.succeed(P.internalError))
              )
      })
    return {
      tools,
      read,
      listTools: () => (config.canAsk?.() === true ? askableTools : tools),
      call,
      housekeeping,
      replied,
      stopAccepting: Ref.update(gate, P.stopAccepting),
      busy: Effect.map(Ref.get(gate), (g) => g.inFlight),
      cancelAll: Effect.flatMap(Effect.map(Ref.get(table), ReplayTable.running), (owners) => Fiber.interruptAll(owners)),
      cancelReads: Effect.flatMap(Effect.map(Ref.get(table), ReplayTable.runningReads), (owners) => Fiber.interruptAll(owners))
    }
  })

export interface ServeOptions {
  readonly workspace: string
  readonly settings: Scopes.Settings
  readonly version: string
  readonly home?: string | undefined
  readonly maxInFlight?: number
  readonly drainMs?: number
  readonly maxOutputBytes?: number
  /** Plain facts appended to the instructions (e.g. whether bash runs in a sandbox). */
  readonly notes?: ReadonlyArray<string>
  readonly bashNetwork?: boolean | undefined
  readonly toolDeadlineMs?: number | undefined
  /**
   * Every mutation asks (permission mode ASK), as `--ask` says; `false` as `--no-ask` says; undefined: when the
   * client declared elicitation, each bash command asks and file edits do not (never under `--allow-all`).
   */
  readonly ask?: boolean | undefined
  /** The configured SQL connections: sql_query's description names them (names, engines, modes; never a URL). */
  readonly sqlConnections?: SqlConnection.Connections | undefined
  /** How often a call with a progressToken is told about (default `CallProgress.intervalMs`). */
  readonly progressIntervalMs?: number | undefined
}

/**
 * What the server's transport is told by the server: how to validate a message (the SDK's schema, loaded lazily
 * here), and whom to tell when the input ends and when a reply was written.
 */
export interface TransportHooks {
  readonly parse: (value: unknown) => JSONRPCMessage | undefined
  readonly onInputEnd: () => void
  readonly onReplied: (id: WireId) => void
}

/**
 * What `mcp serve` runs on, chosen by the app (src/app/ServeLayers.ts): the kernel's adapters (an empty allowlist
 * and nobody to ask, so asks become denies), a text digest for the replay table, and the transport (stdio).
 */
export interface ServeAdapters<E = never> {
  readonly kernel: Kernel.Adapters<E>
  readonly hash: (text: string) => string
  readonly transport: (hooks: TransportHooks) => Transport
  /** Watches the workspace while a client is subscribed to the repo map (`resources/subscribe`); none: refused. */
  readonly watch?: Catalog.Watch
  /** Who answers asks, given the client as a way to ask (elicitation); without it, the kernel adapters' approver. */
  readonly approver?: (channel: ElicitationChannel) => Layer.Layer<Approver, E>
}

const sdkError = (cause: unknown) =>
  new ToolFailed({ tool: "mcp serve", reason: `the MCP SDK failed: ${cause instanceof Error ? cause.message : String(cause)}` })

/** What the SDK turns into a JSON-RPC error response: it reads `code` and `message` (McpError would prefix the message). */
const rpcFailure = (code: number, message: string): Error & { readonly code: number } => Object.assign(new Error(message), { code })

/**
 * The server: stdio only, so no network surface. Returns when the input ends (after draining), or drains on
 * interruption (SIGTERM through the CLI runtime).
 */
export const serve = <E>(options: ServeOptions, adapters: ServeAdapters<E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sessionOptions: Kernel.SessionOptions = {
        workspace: options.workspace,
        workMode: "BUILD",
        permissionMode: "AUTO",
        policy: options.settings.allowAll ? "allow-all" : undefined,
        sessionId,
        home: options.home,
        maxOutputBytes: options.maxOutputBytes,
        bashNetwork: options.bashNetwork,
        toolDeadlineMs: options.toolDeadlineMs
      }
      const sessionContext = yield* Layer.build(Kernel.sessionLayer(sessionOptions).pipe(Layer.provide(adapters.kernel.fileSystem)))
      const root = Context.get(sessionContext, Session).root
      // Built once in this scope and shared by the chain (which writes it) and the core (which asks it after a restart).
      const journal = Context.get(yield* Layer.build(adapters.kernel.journal.pipe(Layer.provide(Layer.succeedContext(sessionContext)))), Journal)
      const thisRun = yield* runTurn(journal, sessionId)
      const [{ Server }, types] = yield* Effect.tryPromise({
        try: () => Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), import("@modelcontextprotocol/sdk/types.js")]),
        catch: sdkError
      })
      const server = new Server(
        { name: "minicode", version: options.version },
        {
          capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, logging: {}, ...Catalog.capabilities },
          instructions: [Guide.instructions(options.settings, options.ask), ...(options.notes ?? [])].join("\n\n")
        }
      )
      const channel: ElicitationChannel = {
        supported: () => server.getClientCapabilities()?.elicitation !== undefined,
        elicit: (params, signal) =>
          server.request({ method: "elicitation/create", params: { mode: "form", ...params } }, types.ElicitResultSchema, { signal, timeout: 2_147_483_647 })
      }
      const log = (level: LogLevel, message: string) => {
        server.sendLoggingMessage({ level, logger: "minicode", data: message }).catch(() => undefined)
      }
      // Once the journal is open (the first write), whether an earlier run left records that need `recover`.
      const serveScope = yield* Effect.scope
      const recoverChecked = yield* Ref.make(false)
      const checkRecover = Effect.flatMap(Ref.getAndSet(recoverChecked, true), (checked) =>
        checked
          ? Effect.void
          : Effect.forkIn(
              Effect.flatMap(Effect.all([journal.recover, thisRun.turn]), ([plan, turn]) => {
                const own = Option.getOrUndefined(turn)
                const open = plan.items.filter((i) => i.classification !== "done" && !(i.session === sessionId && i.turn === own))
                return Effect.sync(() => {
                  if (open.length > 0) log("warning", `the journal holds ${open.length} record(s) of an earlier run that need a look: run \`minicode recover\` in this workspace`)
                })
              }).pipe(Effect.ignore),
              serveScope
            )
      )
      const kernel: Kernel.Adapters<E> = {
        ...adapters.kernel,
        journal: Layer.succeed(Journal, {
          ...thisRun.journal,
          begin: (intent, snapshots, intended) => Effect.tap(thisRun.journal.begin(intent, snapshots, intended), () => checkRecover)
        }),
        ...(adapters.approver === undefined ? {} : { approver: adapters.approver(channel) })
      }
      // Every mutation asks under --ask; by default, when the client can ask the user (known once it initialized: the
      // chain is built after that, see below), each bash command asks and file edits do not; never under --allow-all
      // or --no-ask (Guide.asks says the same to the assistant).
      const chainOptions = (): Kernel.SessionOptions => {
        const mode = Guide.askMode(options.settings.allowAll, options.ask)
        if (mode === "ask") return { ...sessionOptions, permissionMode: "ASK" }
        return mode === "default" && channel.supported() ? { ...sessionOptions, bashAsks: true } : sessionOptions
      }
      // The chain is built once the first tools/list is answered (or by the first call, if that comes first): the
      // listing needs none of it. Its own scope, opened here, keeps its place in the shutdown order; a failure to
      // build it ends the server, as it did when start-up waited for it.
      const ended = yield* Deferred.make<void, E | ToolFailed>()
      const chainScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
      const built = yield* Lazy.onFirstUse(
        Effect.suspend(() => Layer.buildWithScope(Kernel.layer(chainOptions(), kernel), chainScope)).pipe(
          Effect.map((context) => Context.get(context, ToolExecutor)),
          Effect.tapError((e) => Deferred.fail(ended, e))
        )
      )
      const chain = ToolExecutor.of({ run: (invocation) => Effect.flatMap(Effect.orDie(built), (c) => c.run(invocation)) })
      const listed = yield* Deferred.make<void>()
      yield* Effect.forkScoped(Deferred.await(listed).pipe(Effect.zipRight(Effect.sleep(0)), Effect.zipRight(Effect.ignore(built))))
      const core = yield* makeCore({
        settings: options.settings,
        root,
        hash: adapters.hash,
        ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
        ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
        ownTurn: thisRun.turn,
        canAsk: channel.supported,
        ...(options.sqlConnections === undefined ? {} : { descriptions: { sql_query: SqlConnection.summary(options.sqlConnections) } })
      }).pipe(Effect.provideService(ToolExecutor, chain), Effect.provideService(Journal, journal))
      // Interrupted when the scope closes: after the drain (added below, so run before it) and before the journal closes.
      yield* Effect.forkScoped(core.housekeeping)

      const runners = (yield* EffectRunner).bind(yield* Effect.runtime<never>())
      const run = runners.runPromiseExit
      server.onerror = () => undefined
      const wire = (list: ReadonlyArray<ToolDescriptor>) =>
        list.map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: { ...t.inputSchema, type: t.inputSchema.type },
          ...(t.outputSchema === undefined ? {} : { outputSchema: { ...t.outputSchema, type: t.outputSchema.type } }),
          annotations: { ...t.annotations }
        }))
      // Two listings at most (whether the client can ask the user), each made once.
      const wired = new WeakMap<ReadonlyArray<ToolDescriptor>, ReturnType<typeof wire>>()
      const listing = () => {
        const now = core.listTools()
        const found = wired.get(now) ?? wire(now)
        wired.set(now, found)
        return found
      }
      server.setRequestHandler(types.ListToolsRequestSchema, (request) => {
        // One page holds every tool: any cursor is one this server never gave.
        if (request.params?.cursor !== undefined) return Promise.reject(rpcFailure(Framing.ErrorCodes.InvalidParams, "Invalid params: unknown cursor"))
        Deferred.unsafeDone(listed, Exit.void)
        return { tools: listing() }
      })
      const shutdown = yield* Drain.makeShutdown(options.drainMs ?? limits.drainMs)
      const answer = (outcome: Outcome) =>
        outcome._tag === "Result"
          ? {
              content: [{ type: "text" as const, text: outcome.result.text }],
              isError: outcome.result.isError,
              ...(outcome.structured === undefined ? {} : { structuredContent: outcome.structured })
            }
          : Promise.reject(rpcFailure(outcome.code, outcome.message))
      server.setRequestHandler(types.CallToolRequestSchema, (request, extra) =>
        run(
          CallProgress.withProgress(core.call(extra.requestId, request.params.name, request.params.arguments), request.params._meta?.progressToken, {
            log,
            progress: (progress, message) =>
              extra.sendNotification({ method: "notifications/progress", params: { progressToken: request.params._meta?.progressToken ?? 0, progress, message } })
          }, options.progressIntervalMs),
          { signal: extra.signal }
        ).then((exit) => {
          // Cancelled by the client: the SDK sends nothing, and the client does not wait for an answer any more.
          if (extra.signal.aborted) runners.runFork(core.replied(extra.requestId))
          return (
          Exit.isSuccess(exit)
            ? answer(exit.value)
            : // Interrupted: this request was cancelled (the SDK then sends nothing), or a duplicate of it was, or the
              // drain deadline passed; the latter two still get an answer.
              run(Ref.get(shutdown.interrupting)).then((interrupting) => {
                const { code, message } = Drain.interruptedAnswer(extra.requestId, Exit.isSuccess(interrupting) ? interrupting.value : false, shutdown.deadlineMs)
                return answer(P.rpcError(code, message))
              })
          )
        })
      )
      const catalog = Catalog.register({
        server,
        types,
        root,
        read: core.read,
        run,
        fail: rpcFailure,
        guide: (focus) => Guide.focusedGuide(options.settings, focus, options.ask),
        watch: adapters.watch,
        log
      })
      yield* Effect.addFinalizer(() => Effect.sync(catalog.close))

      const transport = adapters.transport({
        parse: (value) => {
          const parsed = types.JSONRPCMessageSchema.safeParse(value)
          return parsed.success ? parsed.data : undefined
        },
        onInputEnd: () => Deferred.unsafeDone(ended, Exit.void),
        // The reply is in the pipe: a server killed from now on has answered it (see `McpRetry`).
        onReplied: (id) => runners.runFork(core.replied(id))
      })
      // On interruption (SIGTERM) or the end of input: drain, close, then finalise this run's turn.
      // A signal stops read-only calls at once; the end of input lets them answer (`echo request | minicode mcp serve`).
      yield* Effect.addFinalizer(() =>
        Effect.flatMap(Deferred.isDone(ended), (inputEnded) => Drain.drain(core, shutdown, { stopReads: !inputEnded })).pipe(
          Effect.zipRight(Effect.promise(() => server.close().catch(() => undefined))),
          Effect.zipRight(thisRun.finalize)
        )
      )
      yield* Effect.tryPromise({ try: () => server.connect(transport), catch: sdkError })
      yield* Deferred.await(ended)
    })
  )
