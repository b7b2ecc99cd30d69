import { Effect } from "effect"
import { validate } from "../../domain/core/Validate.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, wrap } from "./Stage.js"

/** Validation: what the Schema cannot say (an empty old_string, an invalid regex…). */
export const ValidationStage = wrap((next) =>
  Effect.succeed(
    ToolExecutor.of({
      run: (inv) => {
        const problem = validate(inv.facts.call)
        return problem === undefined ? next(inv) : Effect.fail(denied(inv, problem))
      }
    })
  )
)
