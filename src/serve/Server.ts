/**
 * `minicode mcp serve`: the tool chain as an MCP server over stdio.
 *
 * The core (`makeCore`) is SDK-free and owns every rule of a call: scope refusal, Schema decoding, idempotency by
 * JSON-RPC request id (concurrent duplicates share one execution, a retry replays the stored result, the same id
 * with other arguments is a conflict; after a restart the journal answers only a retry of a call a killed run never
 * answered, see `McpRetry`), the in-flight cap, cancellation
 * (interrupting a call interrupts exactly its execution), scrubbed errors and capped output.
 * `serve` loads the SDK lazily, bridges its callbacks to the core, and drains on end of input or SIGTERM.
 */
import type { Readable, Writable } from "node:stream"
import { Cause, Clock, Context, Deferred, Effect, Either, ExecutionStrategy, Exit, Fiber, Layer, Option, Queue, Ref, Runtime, Scope } from "effect"
import * as Approvers from "../adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../adapters/approval/MemoryAllowlist.js"
import { sha256 } from "../adapters/crypto/Sha256.js"
import * as StdioLineTransport from "../adapters/mcp/StdioLineTransport.js"
import * as TextMemo from "../adapters/mcp/TextMemo.js"
import { ToolFailed, type ToolError } from "../domain/core/Errors.js"
import * as Framing from "../domain/mcp/JsonRpcFraming.js"
import * as Guide from "../domain/mcp/McpGuide.js"
import * as Scopes from "../domain/mcp/McpScopes.js"
import { scrub } from "../domain/core/Scrub.js"
import * as Tools from "../domain/core/Tools.js"
import { capText } from "../domain/core/Truncate.js"
import { Journal, type JournalError, type JournalRecord, type JournalShape } from "../ports/Journal.js"
import { Session } from "../ports/Session.js"
import { type Invocation, ToolExecutor, type ToolOutput } from "../ports/ToolExecutor.js"
import * as Kernel from "../kernel/Kernel.js"
import * as Lazy from "../kernel/Lazy.js"
import * as Drain from "./Drain.js"
import * as McpRetry from "./McpRetry.js"
import { describeTool, type ToolDescriptor } from "./ToolList.js"
import * as Runner from "../kernel/Runner.js"
import { canonicalArgs as canonicalCall } from "../domain/core/Canonical.js"

export { describeTool, type ToolDescriptor }

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
  /** Long texts sent again whose escaped JSON is kept (see `Core.sentAgain`): as many as `read_file` keeps listings. */
  sentAgain: { maxEntries: 256, maxChars: 4 * 1024 * 1024 },
  /** After writes, the journal's housekeeping waits for this long with nothing in flight and nothing new admitted. */
  quietMs: 100
}

export type WireId = Framing.WireId

export interface TextResult {
  readonly text: string
  readonly isError: boolean
}

/** What a `tools/call` request gets: a tool result (possibly an error result) or a JSON-RPC error. */
export type Outcome =
  | { readonly _tag: "Result"; readonly result: TextResult }
  | { readonly _tag: "RpcError"; readonly code: number; readonly message: string }

const result = (text: string, isError = false): Outcome => ({ _tag: "Result", result: { text, isError } })
const rpcError = (code: number, message: string): Outcome => ({ _tag: "RpcError", code, message })

export interface CoreConfig {
  readonly settings: Scopes.Settings
  /** Canonical workspace root, for scrubbing error messages. */
  readonly root: string
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
}

export interface Core {
  readonly tools: ReadonlyArray<ToolDescriptor>
  /**
   * One `tools/call`. Never fails: every failure is an Outcome. Interrupting it cancels the request's execution
   * (and, for a duplicate, the execution it joined: cancellation names a request id, and they share it).
   */
  readonly call: (id: WireId, name: string, args: unknown) => Effect.Effect<Outcome>
  /** Refuse new calls from now on ("shutting down"). */
  readonly stopAccepting: Effect.Effect<void>
  /** Requests in flight (each execution runs in the fiber of the request that started it). */
  readonly busy: Effect.Effect<number>
  /** Interrupt every running execution (the drain deadline passed). */
  readonly cancelAll: Effect.Effect<void>
  /**
   * Runs for the server's life (fork it in its scope): after calls that wrote, once nothing has been in flight or
   * admitted for `quietMs`, the journal's housekeeping (`Journal.idle`), so it is not done in the middle of a call.
   */
  readonly housekeeping: Effect.Effect<never>
  /** Long result texts that will be sent again (those of frozen outputs): the transport escapes each of them once. */
  readonly sentAgain: TextMemo.TextMemo<string>
  /**
   * The reply to request `id` was written (or the client cancelled it, so none is due): a mutating call's journal
   * records are marked answered, and a later session's same call is no retry. Never fails.
   */
  readonly replied: (id: WireId) => Effect.Effect<void>
}

interface Running {
  readonly _tag: "Running"
  /** The fiber of the request that runs the execution (duplicates interrupt it when they are cancelled). */
  readonly owner: Fiber.RuntimeFiber<unknown, unknown>
  /** Duplicates of the request waiting for the outcome (rare: a Deferred is made only for them). */
  readonly waiters: ReadonlyArray<Deferred.Deferred<Outcome>>
}

/** Only the outcome is kept once a call finished (not its fiber): a retry with the same id replays it. */
interface Finished {
  readonly _tag: "Finished"
  readonly outcome: Outcome
  readonly bytes: number
}

/**
 * A read-only call's result once it is no longer recent: only its fingerprint. A retry runs the read again (reads
 * change nothing) and answers with the result only if it is the very same, else with an explicit error.
 */
interface Fingerprinted {
  readonly _tag: "Fingerprinted"
  readonly fingerprint: string
}

interface Entry {
  /** Which call the id was used for (see `identityOf`): a retry with other arguments is a conflict. */
  readonly identity: string
  readonly seq: number
  /** A read-only call with no effect outside the workspace: it may run again rather than keep its result whole. */
  readonly rerunnable: boolean
  readonly state: Running | Finished | Fingerprinted
}

/** A recent read-only result kept whole, oldest first. */
interface Recent {
  readonly wire: string
  readonly seq: number
  /** Its size, as `Table.bytes` counts it. */
  readonly bytes: number
  /** What it counts for in the recent window: its size and a fixed cost per entry. */
  readonly weight: number
}

/** Whether new calls are taken, how many are in flight and how many were admitted: one Ref, so admitting a call is one step. */
interface Gate {
  readonly accepting: boolean
  readonly inFlight: number
  readonly admitted: number
}

interface Table {
  /**
   * By wire id, in the order the ids were first seen (so oldest first). A Map changed in place, and only inside
   * `Ref.modify` on the table's one Ref, so each change is still one atomic step. A persistent HashMap copied its
   * path to the root on every change: under a stream of calls those copies outlived the young generation, and with
   * 10,000 entries the old generation's collections cost ~10 % of 32-way read throughput.
   */
  readonly entries: Map<string, Entry>
  readonly seq: number
  /** Size of the results kept whole. */
  readonly bytes: number
  readonly recent: ReadonlyArray<Recent>
  /** The recent window's weight (see `Recent.weight`). */
  readonly recentBytes: number
}

/**
 * A call's identity as the table keeps it: its canonical form when short, else that form's sha256. An entry outlives
 * its call (up to `replayEntries` of them), so it must not hold a write's whole content.
 */
const identityOf = (canonical: string): string => (canonical.length <= 64 ? canonical : `sha256:${sha256(canonical, "base64")}`)

/** What a retry compares: the result's text and whether it was an error. */
const fingerprintOf = (result: TextResult): string => `${result.isError ? "error" : "result"}:${sha256(result.text, "base64")}`

/** Two 32-bit FNV-1a passes: a short, stable digest of the canonical arguments for the journal's request key. */
const digest = (text: string): string => {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193) >>> 0
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0")
}

/** The journal's request key: the wire id (`5` and `"5"` differ) scoped to the canonical arguments. */
export const requestKey = (id: WireId, canonical: string): string => `${JSON.stringify(id)}#${digest(canonical)}`

const shortName = (name: string) => (name.length > 80 ? `${name.slice(0, 80)}…` : name)

const journalVerdict = (id: WireId, record: JournalRecord, earlierRun: boolean): Outcome => {
  const when = new Date(record.updatedAt).toISOString()
  const by = earlierRun ? " by an earlier run of this server that stopped before answering it" : ""
  const what = `request ${JSON.stringify(id)} (${record.tool}) was already received before${by} (journal #${record.seq}, ${when})`
  switch (record.state) {
    case "committed":
      return rpcError(Framing.ErrorCodes.AlreadyHandled, `${what} and executed successfully; it is not executed again`)
    case "failed":
      return rpcError(Framing.ErrorCodes.AlreadyHandled, `${what} and failed; it is not executed again: send it with a new request id to retry`)
    case "pending":
    case "unknown":
      return rpcError(
        Framing.ErrorCodes.AlreadyHandled,
        `${what} and its outcome is unknown (it was interrupted or the server stopped while it ran); it is not executed again: check the workspace, then send it with a new request id if needed`
      )
  }
}

export const makeCore = (config: CoreConfig): Effect.Effect<Core, never, ToolExecutor | Journal> =>
  Effect.gen(function* () {
    const chain = yield* ToolExecutor
    const journal = yield* Journal
    const session = config.sessionId ?? sessionId
    const maxInFlight = config.maxInFlight ?? limits.maxInFlight
    const maxOutputBytes = config.maxOutputBytes ?? Kernel.defaultMaxOutputBytes
    const replayBytes = config.replayBytes ?? limits.replayBytes
    const replayEntries = config.replayEntries ?? limits.replayEntries
    const replayWholeReadBytes = config.replayWholeReadBytes ?? limits.replayWholeReadBytes
    const clean = (text: string) => scrub({ root: config.root }, text)
    const table = yield* Ref.make<Table>({ entries: new Map(), seq: 0, bytes: 0, recent: [], recentBytes: 0 })
    const gate = yield* Ref.make<Gate>({ accepting: true, inFlight: 0, admitted: 0 })
    const quietMs = config.quietMs ?? limits.quietMs
    /** Set when a call that wrote finishes: the journal has something to tidy at the next quiet moment. */
    const wrote = yield* Queue.sliding<void>(1)
    const tools = Scopes.listed(config.settings).map((name) => describeTool(name, config.settings))
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
      return result(capped.text, out.isError === true)
    }
    /**
     * A frozen output is handed out again for the same content (see `FileTools.Listings`): its outcome is made once,
     * frozen too, and the fingerprint of that outcome's result is computed once. Both are kept by identity, so
     * they go with the output, and a fresh output costs no lookup by text.
     */
    const kept = new WeakMap<ToolOutput, Outcome>()
    const sentAgain = TextMemo.empty<string>(limits.sentAgain)
    const fingerprints = new WeakMap<TextResult, string>()
    const outputOf = (out: ToolOutput): Outcome => {
      if (!Object.isFrozen(out)) return outcomeOf(out)
      const found = kept.get(out)
      if (found !== undefined) return found
      const made = outcomeOf(out)
      if (made._tag === "Result") {
        Object.freeze(made.result)
        if (made.result.text.length >= StdioLineTransport.longChars) TextMemo.admit(sentAgain, made.result.text)
      }
      kept.set(out, Object.freeze(made))
      return made
    }
    const fingerprintOfKept = (r: TextResult): string => {
      if (!Object.isFrozen(r)) return fingerprintOf(r)
      const found = fingerprints.get(r)
      if (found !== undefined) return found
      const made = fingerprintOf(r)
      fingerprints.set(r, made)
      return made
    }
    const failureOf = (e: ToolError | JournalError): Outcome => result(clean(e.message), true)

    /** Read-only results past the recent window keep only their fingerprint (the oldest first). */
    const fingerprintOld = (t: Table): Table => {
      if (t.recentBytes <= replayWholeReadBytes) return t
      const entries = t.entries
      let bytes = t.bytes
      let recentBytes = t.recentBytes
      let dropped = 0
      for (const r of t.recent) {
        if (recentBytes <= replayWholeReadBytes / 2) break
        dropped++
        recentBytes -= r.weight
        const found = entries.get(r.wire)
        if (found === undefined || found.seq !== r.seq || found.state._tag !== "Finished") continue
        const outcome = found.state.outcome
        if (outcome._tag !== "Result") continue
        entries.set(r.wire, { ...found, state: { _tag: "Fingerprinted", fingerprint: fingerprintOfKept(outcome.result) } })
        bytes -= r.bytes
      }
      return { ...t, bytes, recent: t.recent.slice(dropped), recentBytes }
    }

    /** Keeps the replay table within its budget: drops the oldest finished entries (the Map keeps them first). */
    const evict = (t: Table): Table => {
      const entries = t.entries
      if (t.bytes <= replayBytes && entries.size <= replayEntries) return t
      let bytes = t.bytes
      for (const [key, e] of entries) {
        if (bytes <= (replayBytes * 3) / 4 && entries.size <= (replayEntries * 3) / 4) break
        if (e.state._tag === "Running") continue
        entries.delete(key)
        bytes -= e.state._tag === "Finished" ? e.state.bytes : 0
      }
      // A removed entry may still be listed as recent: it no longer counts there.
      const recent = t.recent.filter((r) => entries.get(r.wire)?.seq === r.seq)
      return { ...t, bytes, recent, recentBytes: recent.reduce((sum, r) => sum + r.weight, 0) }
    }

    /** Records the outcome (kept for replay, or dropped) and hands it to the duplicates waiting for it. */
    const finish = (wire: string, entry: Entry, outcome: Outcome, keep: boolean) =>
      Effect.flatMap(
        Ref.modify(table, (t): readonly [ReadonlyArray<Deferred.Deferred<Outcome>>, Table] => {
          const current = t.entries.get(wire)
          if (current === undefined || current.seq !== entry.seq || current.state._tag !== "Running") return [[], t]
          const waiters = current.state.waiters
          if (!keep) {
            t.entries.delete(wire)
            return [waiters, t]
          }
          const bytes = outcome._tag === "Result" ? outcome.result.text.length * 2 : 64
          t.entries.set(wire, { ...entry, state: { _tag: "Finished", outcome, bytes } })
          const added = { ...t, bytes: t.bytes + bytes }
          // The window also counts a small cost per entry, so a stream of tiny results cannot make it long.
          const weight = bytes + 256
          const windowed = entry.rerunnable && outcome._tag === "Result"
            ? fingerprintOld({ ...added, recent: [...t.recent, { wire, seq: entry.seq, bytes, weight }], recentBytes: t.recentBytes + weight })
            : added
          return [waiters, evict(windowed)]
        }),
        (waiters) => (waiters.length === 0 ? Effect.void : Effect.forEach(waiters, (w) => Deferred.succeed(w, outcome), { discard: true }))
      )

    /** The execution, in the owner's own fiber: interrupting that fiber interrupts it (a running bash is killed). */
    const execute = (id: WireId, key: string, canonical: string, inv: Invocation, mutates: boolean): Effect.Effect<Outcome> => {
      const run = Effect.map(chain.run({ ...inv, requestId: key, canonicalArgs: canonical }), outputOf)
      /** A record of this request's key answers it only if it is this run's or a retry's (see `McpRetry`). */
      const fromJournal = (prior: JournalRecord) =>
        Effect.flatMap(Effect.all([Clock.currentTimeMillis, ownTurn]), ([now, turn]) =>
          Effect.flatMap(
            McpRetry.answersFor(journal, prior, { startedAt, now, windowMs: retryWindowMs, ...(turn === undefined ? {} : { ownTurn: turn }) }),
            (found) => (found === "NewCall" ? run : Effect.succeed(journalVerdict(id, prior, found === "EarlierRun")))
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
        return Option.isSome(Cause.dieOption(cause))
          ? Effect.succeed(result("minicode hit an internal error while running this call; nothing more is known", true))
          : Effect.failCause(Cause.stripFailures(cause))
      })
    }

    const cancelledWhileRunning = (id: WireId, mutates: boolean): Outcome =>
      mutates
        ? rpcError(
            Framing.ErrorCodes.AlreadyHandled,
            `request ${JSON.stringify(id)} was cancelled while it ran; its effect may or may not have happened (journaled as unknown), so it is not executed again`
          )
        : rpcError(Framing.ErrorCodes.AlreadyHandled, `request ${JSON.stringify(id)} was cancelled`)

    type Claim =
      | { readonly _tag: "Own"; readonly entry: Entry }
      | { readonly _tag: "Seen"; readonly entry: Entry }

    const gone = (id: WireId): Outcome => rpcError(Framing.ErrorCodes.AlreadyHandled, `request ${JSON.stringify(id)} was cancelled`)

    /**
     * A retry of a read whose result was not kept whole: the read runs again, and its result is the answer only if
     * it is the very same as the first time (same fingerprint); otherwise the retry is told so.
     */
    const rerun = (id: WireId, canonical: string, inv: Invocation, fingerprint: string): Effect.Effect<Outcome> =>
      Effect.map(execute(id, requestKey(id, canonical), canonical, inv, false), (outcome) =>
        outcome._tag === "Result" && fingerprintOf(outcome.result) === fingerprint
          ? outcome
          : rpcError(
              Framing.ErrorCodes.AlreadyHandled,
              `request ${JSON.stringify(id)} was already answered; its result is no longer held whole and running it again gives a different result (the workspace changed since): send it with a new request id`
            )
      )

    type Joined =
      | { readonly _tag: "Now"; readonly outcome: Outcome }
      | { readonly _tag: "Wait" }
      | { readonly _tag: "Rerun"; readonly fingerprint: string }

    /** A duplicate of a request still running: waits for its outcome; being cancelled cancels the execution. */
    const join = (
      id: WireId,
      wire: string,
      seq: number,
      owner: Fiber.RuntimeFiber<unknown, unknown>,
      canonical: string,
      inv: Invocation
    ): Effect.Effect<Outcome> =>
      Effect.gen(function* () {
        const waiter = yield* Deferred.make<Outcome>()
        const now = yield* Ref.modify(table, (t): readonly [Joined, Table] => {
          const current = t.entries.get(wire)
          if (current === undefined || current.seq !== seq) return [{ _tag: "Now", outcome: gone(id) }, t]
          const state = current.state
          if (state._tag === "Finished") return [{ _tag: "Now", outcome: state.outcome }, t]
          if (state._tag === "Fingerprinted") return [{ _tag: "Rerun", fingerprint: state.fingerprint }, t]
          t.entries.set(wire, { ...current, state: { ...state, waiters: [...state.waiters, waiter] } })
          return [{ _tag: "Wait" }, t]
        })
        if (now._tag === "Now") return now.outcome
        if (now._tag === "Rerun") return yield* rerun(id, canonical, inv, now.fingerprint)
        // Cancellation names a request id, and duplicates share it: cancelling one cancels the execution.
        return yield* Deferred.await(waiter).pipe(Effect.onInterrupt(() => Fiber.interrupt(owner)))
      })

    /**
     * The first request with an id runs the execution in its own fiber (no fork per call); duplicates wait for its
     * outcome, a retry after it finished replays it. The claim and the finaliser are set up uninterruptibly, so every
     * claimed entry is settled.
     */
    const claimAndRun = (id: WireId, wire: string, canonical: string, inv: Invocation): Effect.Effect<Outcome> => {
      const identity = identityOf(canonical)
      return Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime<Outcome>((owner) =>
          Effect.flatMap(
            Ref.modify(table, (t): readonly [Claim, Table] => {
              const found = t.entries.get(wire)
              if (found !== undefined) return [{ _tag: "Seen", entry: found }, t]
              const rerunnable = !inv.facts.mutates && inv.facts.capability === "read"
              const entry: Entry = { identity, seq: t.seq + 1, rerunnable, state: { _tag: "Running", owner, waiters: [] } }
              t.entries.set(wire, entry)
              return [{ _tag: "Own", entry }, { ...t, seq: t.seq + 1 }]
            }),
            (claim) => {
              const entry = claim.entry
              if (claim._tag === "Seen") {
                if (entry.identity !== identity) {
                  return Effect.succeed(
                    rpcError(
                      Framing.ErrorCodes.Conflict,
                      `request id ${clean(wire)} was already used for a different call on this connection; use a new id for a new call`
                    )
                  )
                }
                const state = entry.state
                if (state._tag === "Finished") return Effect.succeed(state.outcome)
                if (state._tag === "Fingerprinted") return restore(rerun(id, canonical, inv, state.fingerprint))
                return restore(join(id, wire, entry.seq, state.owner, canonical, inv))
              }
              const mutates = inv.facts.mutates
              const key = requestKey(id, canonical)
              return restore(execute(id, key, canonical, inv, mutates)).pipe(
                Effect.onExit((exit) =>
                  // Before the outcome is handed on, so before its reply can be written.
                  Effect.zipRight(
                    mutates ? Effect.sync(() => awaitingReply.set(wire, key)) : Effect.void,
                    Exit.isSuccess(exit) ? finish(wire, entry, exit.value, true) : finish(wire, entry, cancelledWhileRunning(id, mutates), mutates)
                  )
                )
              )
            }
          )
        )
      )
    }

    const admitted = (id: WireId, name: string, args: unknown): Effect.Effect<Outcome> => {
      const display = shortName(name)
      const byName = Object.hasOwn(Tools.Args, name) ? Tools.toolNames.find((t) => t === name) : undefined
      if (byName === undefined) {
        return Effect.succeed(
          rpcError(
            Framing.ErrorCodes.InvalidParams,
            clean(Tools.dynamicName.test(name) ? `${display} is an MCP client tool: mcp serve does not expose them` : `unknown tool "${display}"`)
          )
        )
      }
      const early = Scopes.refuseByName(config.settings, byName)
      if (early !== undefined) return Effect.succeed(result(`refused (${early.rule}): ${early.reason}`, true))
      const prepared = Runner.prepare({ tool: byName, args })
      if (Either.isLeft(prepared)) {
        const e = prepared.left
        const details = e._tag === "InvalidArguments" ? e.details.replace(/(^|; )args\./g, "$1").replace(/(^|; )args: /g, "$1") : e.message
        return Effect.succeed(result(clean(`invalid arguments for ${byName}: ${details}`), true))
      }
      const inv = prepared.right
      const late = Scopes.refuseCall(config.settings, byName, inv.facts)
      if (late !== undefined) return Effect.succeed(result(`refused (${late.rule}): ${late.reason}`, true))
      return claimAndRun(id, JSON.stringify(id), canonicalCall(inv.facts.call), inv)
    }

    const release = Ref.update(gate, (g) => ({ ...g, inFlight: g.inFlight - 1 }))
    const shuttingDown = rpcError(Framing.ErrorCodes.ShuttingDown, "minicode is shutting down and accepts no new calls")
    const busy = rpcError(Framing.ErrorCodes.Busy, `minicode is busy: ${maxInFlight} tool calls are already in flight; retry when one finishes`)

    const call = (id: WireId, name: string, args: unknown): Effect.Effect<Outcome> =>
      Effect.flatMap(
        Ref.modify(gate, (g): readonly [Outcome | "admitted", Gate] =>
          !g.accepting
            ? [shuttingDown, g]
            : g.inFlight >= maxInFlight
              ? [busy, g]
              : ["admitted", { ...g, inFlight: g.inFlight + 1, admitted: g.admitted + 1 }]
        ),
        (admission) => (admission === "admitted" ? Effect.ensuring(admitted(id, name, args), release) : Effect.succeed(admission))
      )

    /** The executions still running, each in the fiber of the request that owns it. */
    const running = Effect.map(Ref.get(table), (t) =>
      [...t.entries.values()].flatMap((e) => (e.state._tag === "Running" ? [e.state.owner] : []))
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

    return {
      tools,
      call,
      housekeeping,
      sentAgain,
      replied,
      stopAccepting: Ref.update(gate, (g) => ({ ...g, accepting: false })),
      busy: Effect.map(Ref.get(gate), (g) => g.inFlight),
      cancelAll: Effect.flatMap(running, (owners) => Fiber.interruptAll(owners))
    }
  })

export interface ServeOptions {
  readonly workspace: string
  readonly settings: Scopes.Settings
  readonly version: string
  readonly home?: string | undefined
  readonly maxInFlight?: number
  readonly maxLineBytes?: number
  readonly drainMs?: number
  readonly maxOutputBytes?: number
  /** Plain facts appended to the instructions (e.g. whether bash runs in a sandbox). */
  readonly notes?: ReadonlyArray<string>
  readonly bashNetwork?: boolean | undefined
  readonly toolDeadlineMs?: number | undefined
}

/** The adapters `mcp serve` runs on; the allowlist is empty and nobody can be asked (asks become denies). */
export type ServeAdapters<E = never> = Omit<Kernel.Adapters<E>, "allowlist" | "approver">

export interface Stdio {
  readonly input: Readable
  readonly output: Writable
}

const sdkError = (cause: unknown) =>
  new ToolFailed({ tool: "mcp serve", reason: `the MCP SDK failed: ${cause instanceof Error ? cause.message : String(cause)}` })

/** What the SDK turns into a JSON-RPC error response: it reads `code` and `message` (McpError would prefix the message). */
const rpcFailure = (code: number, message: string): Error & { readonly code: number } => Object.assign(new Error(message), { code })

/**
 * A server run is one turn of session `mcp-server`, numbered after the last one the journal has, when the run first
 * writes (a run that only reads never opens the journal). The turn is finalised when the run ends cleanly, so the
 * journal's retention keeps the last runs and prunes older ones, and `minicode undo --session mcp-server --turn N`
 * restores what one run changed. (A run that crashed leaves its turn unfinalised, as the CLI's would be: kept, and
 * shown by `minicode recover`; a retry of a call it never answered is answered from the journal, see `McpRetry`.)
 */
const runTurn = (journal: JournalShape) =>
  Effect.gen(function* () {
    const turn = yield* Ref.make(Option.none<number>())
    const assigned = Effect.flatMap(Ref.get(turn), (found) =>
      Option.isSome(found)
        ? Effect.succeed(found.value)
        : Effect.flatMap(journal.lastTurn(sessionId), (last) =>
            // Concurrent first writes agree: the first to set it wins, and the others take its number.
            Ref.modify(turn, (now) => (Option.isSome(now) ? [now.value, now] : [last + 1, Option.some(last + 1)]))
          )
    )
    return {
      turn: Ref.get(turn),
      journal: Journal.of({
        ...journal,
        begin: (intent, snapshots, intended) =>
          Effect.flatMap(assigned, (n) => journal.begin(intent.session === sessionId ? { ...intent, turn: n } : intent, snapshots, intended))
      }),
      finalize: Effect.flatMap(Ref.get(turn), (found) =>
        Option.isSome(found) ? Effect.ignore(journal.finalizeTurn(sessionId, found.value)) : Effect.void
      )
    }
  })

/**
 * The server: stdio only, so no network surface. Returns when the input ends (after draining), or drains on
 * interruption (SIGTERM through the CLI runtime).
 */
export const serve = <E>(options: ServeOptions, adapters: ServeAdapters<E>, stdio: Stdio) =>
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
      const sessionContext = yield* Layer.build(Kernel.sessionLayer(sessionOptions).pipe(Layer.provide(adapters.fileSystem)))
      const root = Context.get(sessionContext, Session).root
      // Built once in this scope and shared by the chain (which writes it) and the core (which asks it after a restart).
      const journal = Context.get(yield* Layer.build(adapters.journal.pipe(Layer.provide(Layer.succeedContext(sessionContext)))), Journal)
      const thisRun = yield* runTurn(journal)
      const kernel: Kernel.Adapters<E> = {
        ...adapters,
        journal: Layer.succeed(Journal, thisRun.journal),
        allowlist: MemoryAllowlist.layer([]),
        approver: Approvers.constant("no")
      }
      // The chain is built once the first tools/list is answered (or by the first call, if that comes first): the
      // listing needs none of it. Its own scope, opened here, keeps its place in the shutdown order; a failure to
      // build it ends the server, as it did when start-up waited for it.
      const ended = yield* Deferred.make<void, E | ToolFailed>()
      const chainScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
      const built = yield* Lazy.onFirstUse(
        Layer.buildWithScope(Kernel.layer(sessionOptions, kernel), chainScope).pipe(
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
        ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
        ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
        ownTurn: thisRun.turn
      }).pipe(Effect.provideService(ToolExecutor, chain), Effect.provideService(Journal, journal))
      // Interrupted when the scope closes: after the drain (added below, so run before it) and before the journal closes.
      yield* Effect.forkScoped(core.housekeeping)

      const [{ Server }, types] = yield* Effect.tryPromise({
        try: () => Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), import("@modelcontextprotocol/sdk/types.js")]),
        catch: sdkError
      })
      const runtime = yield* Effect.runtime<never>()
      const run = Runtime.runPromiseExit(runtime)
      const server = new Server(
        { name: "minicode", version: options.version },
        {
          capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
          instructions: [Guide.instructions(options.settings), ...(options.notes ?? [])].join("\n\n")
        }
      )
      server.onerror = () => undefined
      const tools = core.tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: { ...t.inputSchema, type: t.inputSchema.type },
        annotations: { ...t.annotations }
      }))
      server.setRequestHandler(types.ListToolsRequestSchema, () => {
        Deferred.unsafeDone(listed, Exit.void)
        return { tools }
      })
      const shutdown = yield* Drain.makeShutdown(options.drainMs ?? limits.drainMs)
      const answer = (outcome: Outcome) =>
        outcome._tag === "Result"
          ? { content: [{ type: "text" as const, text: outcome.result.text }], isError: outcome.result.isError }
          : Promise.reject(rpcFailure(outcome.code, outcome.message))
      server.setRequestHandler(types.CallToolRequestSchema, (request, extra) =>
        run(core.call(extra.requestId, request.params.name, request.params.arguments), { signal: extra.signal }).then((exit) => {
          // Cancelled by the client: the SDK sends nothing, and the client does not wait for an answer any more.
          if (extra.signal.aborted) Runtime.runFork(runtime)(core.replied(extra.requestId))
          return (
          Exit.isSuccess(exit)
            ? answer(exit.value)
            : // Interrupted: this request was cancelled (the SDK then sends nothing), or a duplicate of it was, or the
              // drain deadline passed; the latter two still get an answer.
              run(Ref.get(shutdown.interrupting)).then((interrupting) => {
                const { code, message } = Drain.interruptedAnswer(extra.requestId, Exit.isSuccess(interrupting) && interrupting.value, shutdown.deadlineMs)
                return answer(rpcError(code, message))
              })
          )
        })
      )
      const guide = Guide.instructions(options.settings)
      server.setRequestHandler(types.ListPromptsRequestSchema, () => ({
        prompts: [{ name: Guide.promptName, description: Guide.promptDescription }]
      }))
      server.setRequestHandler(types.GetPromptRequestSchema, (request) =>
        request.params.name === Guide.promptName
          ? {
              description: Guide.promptDescription,
              messages: [{ role: "user" as const, content: { type: "text" as const, text: guide } }]
            }
          : Promise.reject(rpcFailure(Framing.ErrorCodes.InvalidParams, `unknown prompt "${shortName(request.params.name)}"`))
      )

      const transport = StdioLineTransport.make({
        input: stdio.input,
        output: stdio.output,
        maxLineBytes: options.maxLineBytes ?? limits.maxLineBytes,
        parse: (value) => {
          const parsed = types.JSONRPCMessageSchema.safeParse(value)
          return parsed.success ? parsed.data : undefined
        },
        onInputEnd: () => Deferred.unsafeDone(ended, Exit.void),
        // The reply is in the pipe: a server killed from now on has answered it (see `McpRetry`).
        onReplied: (id) => Runtime.runFork(runtime)(core.replied(id)),
        sentAgain: core.sentAgain
      })
      // On interruption (SIGTERM) or the end of input: drain, close, then finalise this run's turn.
      yield* Effect.addFinalizer(() =>
        Drain.drain(core, shutdown).pipe(
          Effect.zipRight(Effect.promise(() => server.close().catch(() => undefined))),
          Effect.zipRight(thisRun.finalize)
        )
      )
      yield* Effect.tryPromise({ try: () => server.connect(transport), catch: sdkError })
      yield* Deferred.await(ended)
    })
  )
