import { Context, Effect, Option } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"

/**
 * Protected content under other names in the workspace (hard links to protected files, protected symlinks'
 * targets), as the sandbox's workspace scan finds them now. The jail stage and grep ask it once per call.
 */
export interface ProtectedAliasesShape {
  readonly of: (root: string) => Effect.Effect<Aliases.Protected>
}

export class ProtectedAliases extends Context.Tag("minicode/ProtectedAliases")<ProtectedAliases, ProtectedAliasesShape>() {}

/**
 * The composition's finder, or one that finds nothing (the in-memory compositions: names alone are judged there).
 * Taken where a stage or the executor is built (a call runs in its caller's context, which does not hold it).
 */
export const finder: Effect.Effect<ProtectedAliasesShape> = Effect.map(Effect.serviceOption(ProtectedAliases), Option.getOrElse(() => nothing))

export const nothing: ProtectedAliasesShape = { of: () => Effect.succeed(Aliases.none) }
