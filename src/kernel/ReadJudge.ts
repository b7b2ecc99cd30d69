/**
 * Whether read_file would read a file a call did not name as an argument, so that the jail stage never judged it: a
 * language server's location, whose source line lsp_definition and lsp_references print (red team, issue 19: judged
 * by name alone, a location in a protected symlink's target, a hard link to a protected file or a git folder by
 * another name printed the secret's line). The same three questions the jail stage asks of a path argument: the
 * jail's read rules on the resolved path, a git folder by another name judged as the same path under `.git`, and
 * protected content under another name (the workspace scan's answer, asked at most twice per judge).
 */
import { Effect, Option } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import type { FileSystemShape } from "../ports/FileSystem.js"
import type { ProtectedAliasesShape } from "../ports/ProtectedAliases.js"
import * as GitFolders from "./GitFolders.js"
import * as PathResolver from "./PathResolver.js"

/**
 * A judge for one call: the facts of `path` (the identity an open re-checks) when read_file would read it as a
 * file, else undefined (denied, missing, not a file, unresolvable).
 */
export const judge = (fs: FileSystemShape, ctx: Jail.JailContext, aliases: ProtectedAliasesShape) => {
  const resolve = PathResolver.resolveWith(fs)
  let all: Aliases.Protected | undefined
  let single: Aliases.Protected | undefined
  return (path: string): Effect.Effect<Jail.PathFacts | undefined> =>
    Effect.gen(function* () {
      const resolved = yield* resolve(ctx.root, path, ctx.root, ctx.home).pipe(Effect.option)
      if (Option.isNone(resolved)) return undefined
      const facts = resolved.value
      if (facts.kind !== "file" || !Jail.check(ctx, facts, "read").ok) return undefined
      const asGit = yield* GitFolders.asDotGit(fs, ctx.root, facts.real)
      if (asGit !== undefined && !Jail.checkLexical(ctx, ctx.root, asGit, "read").ok) return undefined
      const found = all ?? (facts.nlink === 1 ? (single ??= yield* aliases.of(ctx.root, "single-link")) : (all = yield* aliases.of(ctx.root)))
      return Aliases.reason(found, ctx.root, facts.real, facts) === undefined ? facts : undefined
    })
}
