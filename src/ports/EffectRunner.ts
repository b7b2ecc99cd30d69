/**
 * Running an Effect from a foreign callback (the MCP SDK's request handlers, a transport's "reply written"): the one
 * way a program reaches the runtime. Built where Effects are run (src/bin.ts; tests build their own) and provided to
 * the program, so `Runtime.run*` stays out of the programs.
 */
import { Context, type Effect, type Exit, type Runtime } from "effect"

export interface Runners {
  /** The effect's exit; aborting `signal` interrupts it. */
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E>, options?: { readonly signal?: AbortSignal }) => Promise<Exit.Exit<A, E>>
  /** Starts the effect and lets it run on its own. */
  readonly runFork: (effect: Effect.Effect<void>) => void
}

export interface EffectRunnerShape {
  /** Runners bound to `runtime` (the caller's, so its services and fiber refs are kept). */
  readonly bind: (runtime: Runtime.Runtime<never>) => Runners
}

export class EffectRunner extends Context.Tag("minicode/EffectRunner")<EffectRunner, EffectRunnerShape>() {}
