/**
 * The chain: Permission → Jail → Bash Guard → Argument Validation → Approval → Journal → Executor. The order is
 * written once, here, as `stages`; the kernel, `policy explain`, the CLI, `mcp serve` and `runTool` all build from
 * it with `compose`, and nothing else composes stages. Each stage is a Layer that wraps the next ToolExecutor
 * (src/kernel/stages/); every decision is a pure domain function. Nothing with a side effect (a write, a spawn, a
 * network call, a state change) runs before Permission and Jail have allowed the call; the operator is asked only
 * once every gate has passed, so nobody approves what would be denied anyway (test/kernel/Ordering.test.ts).
 */
import type { Layer as L } from "effect"
import { Layer } from "effect"
import type { ToolExecutor } from "../ports/ToolExecutor.js"
import { ApprovalStage } from "./stages/ApprovalStage.js"
import { GuardStage } from "./stages/GuardStage.js"
import { JailStage } from "./stages/JailStage.js"
import { JournalStage } from "./stages/JournalStage.js"
import { PermissionStage } from "./stages/PermissionStage.js"
import { ValidationStage } from "./stages/ValidationStage.js"

/** One named stage: a layer that needs the next ToolExecutor (and its services) and provides the wrapped one. */
export interface Stage<E = unknown, R = unknown> {
  readonly name: string
  readonly layer: L.Layer<ToolExecutor, E, R>
}

const stage = <const N extends string, E, R>(name: N, layer: L.Layer<ToolExecutor, E, R>) => ({ name, layer })

export const Permission = stage("permission", PermissionStage)
export const Jail = stage("jail", JailStage)
export const Guard = stage("guard", GuardStage)
export const Validation = stage("validation", ValidationStage)
export const Approval = stage("approval", ApprovalStage)
export const Journal = stage("journal", JournalStage)

/** THE order of the chain, outermost first. */
export const stages = [Permission, Jail, Guard, Validation, Approval, Journal] as const

type ErrorOf<S> = S extends Stage<infer E, unknown> ? E : never
type NeedsOf<S> = S extends Stage<unknown, infer R> ? R : never

/** The stages, outermost first, over `terminal`: each stage's ToolExecutor is the one built from the rest. */
export const compose = <const S extends ReadonlyArray<Stage>, E, R>(
  list: S,
  terminal: L.Layer<ToolExecutor, E, R>
): L.Layer<ToolExecutor, E | ErrorOf<S[number]>, R | Exclude<NeedsOf<S[number]>, ToolExecutor>> => {
  const built: L.Layer<ToolExecutor, unknown, unknown> = list.reduceRight<L.Layer<ToolExecutor, unknown, unknown>>(
    (inner, s) => s.layer.pipe(Layer.provide(inner)),
    terminal
  )
  // The fold loses the element-wise types the signature states: each stage's ToolExecutor need is met by `inner`.
  return built as L.Layer<ToolExecutor, E | ErrorOf<S[number]>, R | Exclude<NeedsOf<S[number]>, ToolExecutor>>
}

/** The gates: the prefix of `stages` up to Validation (what `policy explain` runs; nothing after it may act). */
export const gateStages = stages.slice(0, stages.indexOf(Validation) + 1)

/** The gates alone, over whatever `terminal` executor. */
export const gates = <E, R>(terminal: L.Layer<ToolExecutor, E, R>) => compose(gateStages, terminal)

/** The whole runtime chain over the executor. */
export const chain = <E, R>(executor: L.Layer<ToolExecutor, E, R>) => compose(stages, executor)

export { jailContext, workspaceRelative } from "./stages/Stage.js"
