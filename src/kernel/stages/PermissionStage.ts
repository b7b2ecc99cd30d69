import { Effect } from "effect"
import * as D from "../../domain/core/Decision.js"
import * as Policy from "../../domain/core/Policy.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { Session } from "../../ports/Session.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, loadAllowlist, wrap } from "./Stage.js"

/** Permission: work mode, access policy and permission mode. Pure; touches nothing. */
export const PermissionStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const store = yield* AllowlistStore
    return ToolExecutor.of({
      run: (inv) =>
        Effect.flatMap(loadAllowlist(store), (allowlist) => {
          const decision = Policy.evaluate({ ...session, allowlist }, inv.facts)
          return D.isDeny(decision)
            ? Effect.fail(denied(inv, decision))
            : next({ ...inv, permission: decision, decisions: [...inv.decisions, decision] })
        })
    })
  })
)
