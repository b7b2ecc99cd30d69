/** sql_query (and the other SQL tools) through the whole chain, on real adapters, with the given connections. */
import { Effect, Either, Layer } from "effect"
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as NodeAdapters from "../../src/app/NodeLayers.js"
import type { Request } from "../../src/kernel/Runner.js"
import type { Connections } from "../../src/domain/sql/SqlConnection.js"
import { Journal } from "../../src/ports/Journal.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { nodeAdapters } from "./Adapters.js"

export const invoke = (root: string, input: Request, sql: Connections) =>
  Effect.gen(function* () {
    const { journal } = yield* MemoryJournal.make()
    const adapters = nodeAdapters({
      approver: Approvers.constant("yes"),
      journal: Layer.succeed(Journal, journal),
      extensions: NodeAdapters.extensions({ unrestricted: false, sql }),
      sql: NodeAdapters.sqlGuard(sql)
    })
    const session = { workspace: root, workMode: "BUILD" as const, permissionMode: "AUTO" as const }
    return yield* Effect.either(Runner.invoke(input).pipe(Effect.provide(Kernel.layer(session, adapters))))
  })

/** `stage:rule` of a denial, or what happened instead. */
export const denial = (outcome: Either.Either<{ readonly text: string }, { readonly _tag: string; readonly message: string }>): string => {
  if (Either.isRight(outcome)) return `allowed: ${outcome.right.text}`
  const error = outcome.left
  if (error._tag === "ToolDenied" && "stage" in error && "rule" in error) return `${String(error.stage)}:${String(error.rule)}`
  return `${error._tag}: ${error.message}`
}
