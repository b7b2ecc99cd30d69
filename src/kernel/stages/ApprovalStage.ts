import { Effect } from "effect"
import * as Approval from "../../domain/core/Approval.js"
import * as D from "../../domain/core/Decision.js"
import { AllowlistUnwritable } from "../../domain/core/Errors.js"
import { nameOf } from "../../domain/core/Tools.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { Approver } from "../../ports/Approver.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, wrap } from "./Stage.js"
import { summary } from "../../domain/core/Summary.js"

/**
 * Approval: an "ask" that survived every gate goes to the operator; without one it is a deny, whose message says
 * why nobody said yes and how to allow the call (the allowlist line, the front end's flag). "Always" saves exactly
 * the entry the operator was shown (`Approval.alwaysEntry`).
 */
export const ApprovalStage = wrap((next) =>
  Effect.gen(function* () {
    const approver = yield* Approver
    const store = yield* AllowlistStore
    return ToolExecutor.of({
      run: (inv) =>
        inv.permission.decision !== "ask"
          ? next(inv)
          : Effect.gen(function* () {
              const entry = Approval.alwaysEntry(inv.facts, inv.permission, inv.bashUnmatched)
              const answer = yield* approver.ask({
                tool: nameOf(inv.facts.call),
                summary: summary(inv.facts),
                decision: inv.permission,
                sentence: Approval.sentence(inv.facts, inv.permission, entry),
                ...(entry === undefined ? {} : { entry })
              })
              if (answer === "no" || typeof answer === "object") {
                const why = answer === "no" ? "the operator said no (or nobody could be asked)" : answer.why
                const flag = typeof answer === "object" && answer.howToAllow !== undefined ? `, or ${answer.howToAllow}` : ""
                const reason = `${inv.permission.reason}; ${why}. To allow it: ${Approval.howToAllow(inv.facts, entry)}${flag}`
                return yield* denied(inv, D.deny("permission", "approval.declined", reason))
              }
              if (answer === "always" && entry !== undefined) {
                yield* store.add(entry).pipe(Effect.mapError((e) => new AllowlistUnwritable({ reason: e.reason })))
              }
              const permission = D.allow("permission", "approval.granted", "the operator approved this call")
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, permission] })
            })
    })
  })
)
