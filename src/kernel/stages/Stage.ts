/** What every stage shares: the denial it fails with, the decorator shape, the jail context. */
import { Effect, Layer } from "effect"
import * as Approval from "../../domain/core/Approval.js"
import * as D from "../../domain/core/Decision.js"
import { AllowlistUnreadable, ToolDenied } from "../../domain/core/Errors.js"
import * as Jail from "../../domain/jail/Jail.js"
import * as P from "../../domain/jail/PosixPath.js"
import { nameOf } from "../../domain/core/Tools.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { type SessionShape } from "../../ports/Session.js"
import { type Invocation, ToolExecutor } from "../../ports/ToolExecutor.js"

/** The refusal of `d`; a permission refusal carries how an allowlist entry would allow the call (`Remedy`). */
export const denied = (inv: Invocation, d: D.Decision) =>
  new ToolDenied({
    tool: nameOf(inv.facts.call),
    stage: d.stage,
    rule: d.rule,
    reason: d.reason,
    ...(d.stage === "permission" ? { allow: Approval.howToAllow(inv.facts) } : {})
  })

export const wrap = <R>(
  around: (next: (inv: Invocation) => ReturnType<typeof ToolExecutor.Service.run>) => Effect.Effect<typeof ToolExecutor.Service, never, R>
) =>
  Layer.effect(
    ToolExecutor,
    Effect.flatMap(ToolExecutor, (next) => around(next.run))
  )

export const jailContext = (session: SessionShape): Jail.JailContext => ({
  root: session.root,
  ...(session.home === undefined ? {} : { home: session.home }),
  unrestricted: session.policy === "unrestricted"
})

export const loadAllowlist = (store: typeof AllowlistStore.Service) =>
  store.entries.pipe(Effect.mapError((e) => new AllowlistUnreadable({ reason: e.reason })))


export const workspaceRelative = (session: Pick<SessionShape, "root">, absolute: string) =>
  P.isInside(session.root, absolute) ? P.relative(session.root, absolute) : absolute
