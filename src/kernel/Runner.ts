/**
 * The edge of the chain: decode untrusted `{tool, args}` once, then run it through whatever chain is provided.
 * `explain` runs the gates over a terminal that executes nothing and reports the decision.
 */
import { Effect, Either, Layer, Ref } from "effect"
import * as D from "../domain/core/Decision.js"
import { InvalidArguments, type ToolError, UnknownTool } from "../domain/core/Errors.js"
import * as Tools from "../domain/core/Tools.js"
import { type Invocation, ToolExecutor, type ToolOutput } from "../ports/ToolExecutor.js"
import { gates } from "./Chain.js"

export interface Request {
  readonly tool: string
  readonly args: unknown
  readonly requestId?: string | undefined
}

const undecided = D.ask("permission", "permission.pending", "not decided yet")

export const prepare = (request: Request): Either.Either<Invocation, UnknownTool | InvalidArguments> =>
  Tools.decode(request.tool, request.args).pipe(
    Either.mapBoth({
      onLeft: (failure) =>
        failure._tag === "UnknownTool"
          ? new UnknownTool({ tool: failure.tool, known: Tools.toolNames })
          : new InvalidArguments({ tool: failure.tool, details: failure.details }),
      onRight: (call): Invocation => ({
        facts: Tools.facts(call),
        permission: undecided,
        decisions: [],
        resolved: {},
        requestId: request.requestId
      })
    })
  )

export const invoke = (request: Request): Effect.Effect<ToolOutput, ToolError, ToolExecutor> =>
  Effect.flatMap(prepare(request), (inv) => Effect.flatMap(ToolExecutor, (chain) => chain.run(inv)))

/** What `policy explain` prints: the gates' decision, with nothing executed. */
export const explain = <E, R>(
  request: Request,
  withGates: (terminal: Layer.Layer<ToolExecutor>) => Layer.Layer<ToolExecutor, E, R>
): Effect.Effect<D.Decision, E, R> =>
  Effect.gen(function* () {
    const prepared = prepare(request)
    if (Either.isLeft(prepared)) {
      const e = prepared.left
      return e._tag === "UnknownTool"
        ? D.deny("validation", "validation.unknown-tool", `unknown tool "${e.tool}"`)
        : D.deny("validation", "validation.schema", e.details)
    }
    const reached = yield* Ref.make<Invocation | undefined>(undefined)
    const terminal = Layer.succeed(
      ToolExecutor,
      ToolExecutor.of({ run: (inv) => Effect.as(Ref.set(reached, inv), { text: "", truncated: false }) })
    )
    const outcome = yield* Effect.flatMap(ToolExecutor, (chain) => Effect.either(chain.run(prepared.right))).pipe(
      Effect.provide(withGates(terminal))
    )
    if (Either.isLeft(outcome)) {
      const e = outcome.left
      if (e._tag === "ToolDenied") return D.deny(e.stage, e.rule, e.reason)
      return D.deny("validation", `error.${e._tag}`, e.message)
    }
    const inv = yield* Ref.get(reached)
    if (inv === undefined) return D.deny("validation", "explain.unreached", "the call did not reach the executor")
    if (inv.permission.decision === "ask") return inv.permission
    const guard = inv.decisions.find((d) => d.stage === "guard")
    return guard ?? inv.permission
  })

export { gates }
