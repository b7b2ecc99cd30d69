/**
 * A gate's answer about one call: what it decided, which stage decided, the stable rule id, and a reason a person
 * can read. `policy explain` prints exactly these four fields.
 */
import { Schema } from "effect"

export const Verdict = Schema.Literal("allow", "deny", "ask")
export type Verdict = typeof Verdict.Type

export const Stage = Schema.Literal("permission", "jail", "guard", "validation")
export type Stage = typeof Stage.Type

export const Decision = Schema.Struct({
  decision: Verdict,
  stage: Stage,
  rule: Schema.String,
  reason: Schema.String
})
export type Decision = typeof Decision.Type

export const allow = (stage: Stage, rule: string, reason: string): Decision => ({ decision: "allow", stage, rule, reason })
export const deny = (stage: Stage, rule: string, reason: string): Decision => ({ decision: "deny", stage, rule, reason })
export const ask = (stage: Stage, rule: string, reason: string): Decision => ({ decision: "ask", stage, rule, reason })

export const isDeny = (d: Decision): boolean => d.decision === "deny"
