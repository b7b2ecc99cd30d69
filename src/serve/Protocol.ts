/**
 * The rules of a `tools/call` in `mcp serve`, as pure functions over plain data: admission (shutting down, the
 * in-flight cap), which calls are refused before they reach the chain (unknown or client tools, scopes, bad
 * arguments), a call's identity and the journal's request key, and every verdict a request can get without
 * running (a conflict, a cancelled duplicate, a retry answered from the journal). No fibers, no Refs: the server
 * (`Server.ts`) keeps the state and calls these inside its atomic steps; `ReplayTable.ts` holds the replay table.
 */
import { Either } from "effect"
import * as PlainSchema from "../domain/mcp/PlainSchema.js"
import { inputSchemaOf } from "./ToolList.js"
import * as Framing from "../domain/mcp/JsonRpcFraming.js"
import * as Scopes from "../domain/mcp/McpScopes.js"
import * as Tools from "../domain/core/Tools.js"
import type { JournalRecord } from "../ports/Journal.js"
import type { Invocation } from "../ports/ToolExecutor.js"
import * as Runner from "../kernel/Runner.js"

export type WireId = Framing.WireId

export interface TextResult {
  readonly text: string
  readonly isError: boolean
}

/** What a `tools/call` request gets: a tool result (possibly an error result) or a JSON-RPC error. */
export type Outcome =
  | { readonly _tag: "Result"; readonly result: TextResult; readonly structured?: Readonly<Record<string, unknown>> }
  | { readonly _tag: "RpcError"; readonly code: number; readonly message: string }

export const result = (text: string, isError = false, structured?: Readonly<Record<string, unknown>>): Outcome =>
  structured === undefined || isError ? { _tag: "Result", result: { text, isError } } : { _tag: "Result", result: { text, isError }, structured }
export const rpcError = (code: number, message: string): Outcome => ({ _tag: "RpcError", code, message })

/** Whether new calls are taken, how many are in flight and how many were admitted: one value, so admitting a call is one step. */
export interface Gate {
  readonly accepting: boolean
  readonly inFlight: number
  readonly admitted: number
}

export const openGate: Gate = { accepting: true, inFlight: 0, admitted: 0 }

export const shuttingDown = rpcError(Framing.ErrorCodes.ShuttingDown, "minicode is shutting down and accepts no new calls")
export const busy = (maxInFlight: number) =>
  rpcError(Framing.ErrorCodes.Busy, `minicode is busy: ${maxInFlight} tool calls are already in flight; retry when one finishes`)

/** A new request at the gate: refused (shutting down, or the cap is reached), or admitted and counted in flight. */
export const admit = (g: Gate, maxInFlight: number): readonly [Outcome | "admitted", Gate] =>
  !g.accepting
    ? [shuttingDown, g]
    : g.inFlight >= maxInFlight
      ? [busy(maxInFlight), g]
      : ["admitted", { ...g, inFlight: g.inFlight + 1, admitted: g.admitted + 1 }]

/** An admitted request is over. */
export const release = (g: Gate): Gate => ({ ...g, inFlight: g.inFlight - 1 })

export const stopAccepting = (g: Gate): Gate => ({ ...g, accepting: false })

export const shortName = (name: string) => (name.length > 80 ? `${name.slice(0, 80)}…` : name)

/**
 * A call before the chain: refused (an unknown or client tool is a JSON-RPC error; a scope refusal or bad arguments
 * an error result), or prepared for it. `clean` scrubs what echoes the request (paths of the workspace).
 */
export const prepare = (
  settings: Scopes.Settings,
  name: string,
  args: unknown,
  clean: (text: string) => string
): Either.Either<Invocation, Outcome> => {
  const display = shortName(name)
  const byName = Object.hasOwn(Tools.Args, name) ? Tools.toolNames.find((t) => t === name) : undefined
  if (byName === undefined) {
    return Either.left(
      rpcError(
        Framing.ErrorCodes.InvalidParams,
        clean(Tools.dynamicName.test(name) ? `${display} is an MCP client tool: mcp serve does not expose them` : `unknown tool "${display}"`)
      )
    )
  }
  const early = Scopes.refuseByName(settings, byName)
  if (early !== undefined) return Either.left(result(`refused (${early.rule}): ${early.reason}`, true))
  const first = Runner.prepare({ tool: byName, args })
  // Numbers or booleans sent as strings (some clients do): decoded again once coerced, or refused naming the field.
  const coerced = Either.isLeft(first) && first.left._tag === "InvalidArguments" ? PlainSchema.coerce(inputSchemaOf(byName), args) : undefined
  if (coerced !== undefined && Either.isLeft(coerced)) return Either.left(result(clean(`invalid arguments for ${byName}: ${coerced.left}`), true))
  const prepared = coerced === undefined ? first : Runner.prepare({ tool: byName, args: coerced.right })
  if (Either.isLeft(prepared)) {
    const e = prepared.left
    const details = e._tag === "InvalidArguments" ? e.details.replace(/(^|; )args\./g, "$1").replace(/(^|; )args: /g, "$1") : e.message
    return Either.left(result(clean(`invalid arguments for ${byName}: ${details}`), true))
  }
  const inv = prepared.right
  const late = Scopes.refuseCall(settings, byName, inv.facts)
  if (late !== undefined) return Either.left(result(`refused (${late.rule}): ${late.reason}`, true))
  return Either.right(inv)
}

/** A read-only call with no effect outside the workspace: it may run again rather than keep its result whole. */
export const rerunnable = (inv: Invocation): boolean => !inv.facts.mutates && inv.facts.capability === "read"

/**
 * A call's identity as the replay table keeps it: its canonical form when short, else that form's hash. An entry
 * outlives its call (up to `replayEntries` of them), so it must not hold a write's whole content.
 */
export const identityOf = (canonical: string, hash: (text: string) => string): string =>
  canonical.length <= 64 ? canonical : `sha256:${hash(canonical)}`

/** What a retry compares: the result's text and whether it was an error. */
export const fingerprintOf = (r: TextResult, hash: (text: string) => string): string => `${r.isError ? "error" : "result"}:${hash(r.text)}`

/** Two 32-bit FNV-1a passes: a short, stable digest of the canonical arguments for the journal's request key. */
export const digest = (text: string): string => {
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

/** A request id seen before for another call on this connection. */
export const conflict = (wire: string, clean: (text: string) => string): Outcome =>
  rpcError(Framing.ErrorCodes.Conflict, `request id ${clean(wire)} was already used for a different call on this connection; use a new id for a new call`)

/** A duplicate whose execution was cancelled. */
export const gone = (id: WireId): Outcome => rpcError(Framing.ErrorCodes.AlreadyHandled, `request ${JSON.stringify(id)} was cancelled`)

/** A request interrupted while its call ran: a mutation may have happened, so it is never run again. */
export const cancelledWhileRunning = (id: WireId, mutates: boolean): Outcome =>
  mutates
    ? rpcError(
        Framing.ErrorCodes.AlreadyHandled,
        `request ${JSON.stringify(id)} was cancelled while it ran; its effect may or may not have happened (journaled as unknown), so it is not executed again`
      )
    : gone(id)

/** A retry of a read run again: its answer only if it is the very same as the first time. */
export const rerunVerdict = (id: WireId, again: Outcome, fingerprint: string, fingerprintOfResult: (r: TextResult) => string): Outcome =>
  again._tag === "Result" && fingerprintOfResult(again.result) === fingerprint
    ? again
    : rpcError(
        Framing.ErrorCodes.AlreadyHandled,
        `request ${JSON.stringify(id)} was already answered; its result is no longer held whole and running it again gives a different result (the workspace changed since): send it with a new request id`
      )

/** A mutating request the journal already has a record of (this run's, or an earlier run's that never answered it). */
export const journalVerdict = (id: WireId, record: JournalRecord, earlierRun: boolean): Outcome => {
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

/** A defect in a call: nothing internal leaks. */
export const internalError = result("minicode hit an internal error while running this call; nothing more is known", true)
