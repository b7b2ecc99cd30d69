import { Effect } from "effect"
import * as Allowlist from "../../domain/core/Allowlist.js"
import * as D from "../../domain/core/Decision.js"
import { AllowlistUnwritable } from "../../domain/core/Errors.js"
import { approvalName, type Facts, nameOf } from "../../domain/core/Tools.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { Approver } from "../../ports/Approver.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, wrap } from "./Stage.js"
import { summary } from "../../domain/core/Summary.js"

/** The entry an "always" answer saves: the exact tool (an MCP call keeps its server.tool), never a wildcard. */
const entryFor = (facts: Facts): Allowlist.AllowEntry => ({ tool: approvalName(facts.call) })

/** Approval: an "ask" that survived every gate goes to the operator; without one it is a deny. */
export const ApprovalStage = wrap((next) =>
  Effect.gen(function* () {
    const approver = yield* Approver
    const store = yield* AllowlistStore
    return ToolExecutor.of({
      run: (inv) =>
        inv.permission.decision !== "ask"
          ? next(inv)
          : Effect.gen(function* () {
              const answer = yield* approver.ask({ tool: nameOf(inv.facts.call), summary: summary(inv.facts), decision: inv.permission })
              if (answer === "no") {
                return yield* denied(inv, D.deny("permission", "approval.declined", `${inv.permission.reason}; the operator said no (or nobody could be asked)`))
              }
              if (answer === "always" && inv.facts.call.tool !== "bash") {
                yield* store.add(entryFor(inv.facts)).pipe(Effect.mapError((e) => new AllowlistUnwritable({ reason: e.reason })))
              }
              const permission = D.allow("permission", "approval.granted", "the operator approved this call")
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, permission] })
            })
    })
  })
)
