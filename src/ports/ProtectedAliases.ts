import { Context, Effect } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"

/**
 * Protected content under other names in the workspace (hard links to protected files, protected symlinks'
 * targets), as the sandbox's workspace scan finds them now. The jail stage and grep ask it once per call.
 */
export interface ProtectedAliasesShape {
  readonly of: (root: string) => Effect.Effect<Aliases.Protected>
}

export class ProtectedAliases extends Context.Tag("minicode/ProtectedAliases")<ProtectedAliases, ProtectedAliasesShape>() {}

/** For compositions without a real workspace scan (the in-memory ones): names alone are judged there. */
export const nothing: ProtectedAliasesShape = { of: () => Effect.succeed(Aliases.none) }
