import { Effect } from "effect"
import * as D from "../../domain/core/Decision.js"
import * as TreeControls from "../../domain/git/TreeControls.js"
import * as Aliases from "../../domain/jail/Aliases.js"
import * as Jail from "../../domain/jail/Jail.js"
import { type FileKind, FileSystem } from "../../ports/FileSystem.js"
import * as ProtectedAliases from "../../ports/ProtectedAliases.js"
import { Session } from "../../ports/Session.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import * as EditorContent from "../EditorContent.js"
import * as GitFolders from "../GitFolders.js"
import * as PathResolver from "../PathResolver.js"
import * as Subtree from "../Subtree.js"
import { denied, jailContext, wrap } from "./Stage.js"

/** The kind of entry a call makes at its path `field` (a written file, a move's landing), or undefined for none. */
const made = (inv: { readonly facts: { readonly call: { readonly tool: string } } }, field: string, resolved: Readonly<Record<string, Jail.PathFacts>>): FileKind | undefined => {
  const tool = inv.facts.call.tool
  if ((tool === "write_file" || tool === "edit_file") && field === "path") return "file"
  const from = resolved["from"]?.kind
  if (tool === "move_file" && field === "to" && from !== undefined) return from === "directory" || from === "file" ? from : "symlink"
  return undefined
}

/** Jail: every path argument resolved (lstat/readlink only) and judged; the facts travel on to the executor. */
export const JailStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const fs = yield* FileSystem
    const ctx = jailContext(session)
    const resolve = PathResolver.resolveWith(fs)
    const protectedAliases = yield* ProtectedAliases.ProtectedAliases
    return ToolExecutor.of({
      run: (inv) =>
        Effect.gen(function* () {
          const resolved: Record<string, Jail.PathFacts> = {}
          // Asked once per call, only when a path exists (what the sandbox's scan finds under other names): the whole
          // answer, or the one for folders and single-link files only (`single-link`, cheaper for a one-shot process).
          let all: Aliases.Protected | undefined
          let single: Aliases.Protected | undefined
          for (const use of inv.facts.paths) {
            const facts = yield* resolve(session.root, use.path, session.root, session.home).pipe(
              Effect.catchTag("FsError", (e) =>
                Effect.fail(
                  denied(inv, D.deny("jail", e.code === "ELOOP" ? "jail.symlink-loop" : "jail.unresolvable", `${use.path}: ${e.reason}`))
                )
              )
            )
            const verdict = Jail.check(ctx, facts, use.access)
            if (!verdict.ok) return yield* denied(inv, D.deny("jail", verdict.rule, `${use.field}: ${verdict.reason}`))
            // In a git folder by another name (`.repo/config`), judged as the same path under `.git` is.
            const alias = yield* GitFolders.asDotGit(fs, session.root, facts.real)
            const asGit = alias === undefined ? Jail.ok : Jail.checkLexical(ctx, session.root, alias, use.access)
            if (!asGit.ok) {
              const shown = Jail.shown(ctx, facts.real)
              return yield* denied(inv, D.deny("jail", asGit.rule, `${use.field}: ${shown} is in a git folder, judged as ${Jail.shown(ctx, alias ?? "")}: ${asGit.reason}`))
            }
            // A file the repository's configuration makes git's (core.hooksPath's folder, an included config).
            if (use.access !== "read") {
              // Per path: the repositories on its way count too (a nested project's own hooks folder).
              const candidates = [facts.lexical, facts.real, facts.entry]
              const controls = yield* protectedAliases.treeControls(session.root, session.home, candidates)
              for (const candidate of candidates) {
                const why = TreeControls.changeReason(controls, candidate, use.access === "structure")
                if (why !== undefined) return yield* denied(inv, D.deny("jail", "jail.git-internals", `${use.field}: ${Jail.shown(ctx, candidate)} is protected: ${why}`))
              }
            }
            // Protected content under another name (a hard link to `.env`, a protected symlink's target): the
            // identity checked here is the one the tool's open re-checks (`expect`), so a swap after this is refused.
            // Not for a folder whose tool judges its contents itself (`judgesContents`): that would be a second
            // validation of the workspace scan (~80 ms on a 60k-file tree without watchers) for nothing.
            if (facts.exists && (facts.kind === "file" || (facts.kind === "directory" && !(use.access === "read" && use.judgesContents === true)))) {
              const aliases =
                all ?? (facts.kind === "directory" || facts.nlink === 1 ? (single ??= yield* protectedAliases.of(session.root, "single-link")) : (all = yield* protectedAliases.of(session.root)))
              const why = Aliases.reason(aliases, session.root, facts.real, facts.kind === "file" ? facts : undefined)
              if (why !== undefined) return yield* denied(inv, D.deny("jail", "jail.alias", `${use.field}: ${Jail.shown(ctx, facts.real)} is protected: ${why}`))
            }
            resolved[use.field] = facts
          }
          // A new entry that would make its folder one git takes for a git folder (a `HEAD` beside `objects/` and
          // `refs/`, or beside a `commondir`): that folder's config and hooks would run in the user's own git.
          for (const use of inv.facts.paths) {
            const facts = resolved[use.field]
            const kind = made(inv, use.field, resolved)
            // A move may replace an entry by one of another kind (a file `objects` by a folder): judged as well.
            if (facts === undefined || kind === undefined || (facts.exists && inv.facts.call.tool !== "move_file")) continue
            const folder = yield* GitFolders.madeGitFolder(fs, session.root, facts.real, kind)
            if (folder !== undefined) {
              const why = `${use.field}: ${Jail.shown(ctx, facts.real)} would make ${Jail.shown(ctx, folder)} a folder git takes for a git folder (HEAD beside objects/ and refs/, or a commondir), whose config and hooks the user's own git would run`
              return yield* denied(inv, D.deny("jail", "jail.git-internals", why))
            }
          }
          // A folder moved, removed or replaced is judged with everything in it (and, moved, where it lands).
          for (const use of inv.facts.paths) {
            const facts = resolved[use.field]
            if (use.access !== "structure" || facts === undefined) continue
            const landing = use.landsAt === undefined ? undefined : resolved[use.landsAt]
            const bases = landing === undefined ? [facts.entry] : [facts.entry, landing.entry]
            const shown = `${use.field}: ${Jail.shown(ctx, facts.entry)}`
            const judged = yield* Subtree.judge(fs, facts.entry, (rel) => Jail.checkContents(ctx, Jail.shown(ctx, facts.entry), bases, rel)).pipe(
              Effect.catchTag("FsError", (e) => Effect.fail(denied(inv, D.deny("jail", "jail.unresolvable", `${shown}: cannot list what it holds: ${e.reason}`))))
            )
            if (judged._tag === "Refused") return yield* denied(inv, D.deny("jail", judged.verdict.rule, `${use.field}: ${judged.verdict.reason}`))
            // A protected symlink's target is protected by its path: the folder above it moved, the link would
            // dangle and the content would stand unprotected under the new name (a move never unprotects).
            if (facts.kind === "directory") {
              const aliases = all ?? (single ??= yield* protectedAliases.of(session.root, "single-link"))
              const held = Aliases.inside(aliases, facts.real)
              if (held !== undefined) {
                return yield* denied(inv, D.deny("jail", "jail.alias", `${shown} holds ${Jail.shown(ctx, held)}, a protected file under another name (a protected symlink's target, or a hard link to one)`))
              }
            }
            if (judged._tag === "TooLarge") {
              return yield* denied(inv, D.deny("jail", "jail.subtree-too-large", `${shown} holds more than ${judged.limit} entries: too many to check that none is protected`))
            }
          }
          // Content the user's editor or agent would run commands from, on the host (.claude/settings.json hooks…).
          // Judged by every name the editor reads it by, through a symlink at a control's name too (the scan's answer).
          const tool = inv.facts.call.tool
          const controlAliases = tool === "write_file" || tool === "edit_file" || tool === "move_file" ? (all ?? (single ??= yield* protectedAliases.of(session.root, "single-link"))) : Aliases.none
          const control = yield* EditorContent.judge(fs, session.root, inv.facts.call, resolved, controlAliases).pipe(
            Effect.catchTag("FsError", (e) => Effect.fail(denied(inv, D.deny("jail", "jail.unresolvable", `cannot read what the call would leave: ${e.reason}`))))
          )
          if (control !== undefined) return yield* denied(inv, D.deny("jail", control.rule, control.reason))
          return yield* next({
            ...inv,
            resolved,
            decisions: [...inv.decisions, D.allow("jail", "jail.inside", "every path stays inside the jail")]
          })
        })
    })
  })
)
