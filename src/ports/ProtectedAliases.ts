import { Context, Effect } from "effect"
import * as TreeControls from "../domain/git/TreeControls.js"
import * as Aliases from "../domain/jail/Aliases.js"

/** What a scan found, and its version: the same number for every scan since that found the same things to hide. */
export interface Known {
  readonly aliases: Aliases.Protected
  readonly version: number
  /** When that scan started (`performance.now()` of this process). */
  readonly startedAt: number
}

/**
 * Protected content under other names in the workspace (hard links to protected files, protected symlinks'
 * targets), as the sandbox's workspace scan finds them now. The jail stage and grep ask it once per call.
 */
export interface ProtectedAliasesShape {
  /**
   * `single-link`: the answer need only hold for folders and for files with one link (what a single-file tool asks
   * about): no other name shares such a file's inode, so the adapter may leave out the search for other links.
   */
  readonly of: (root: string, scope?: Scope, options?: OfOptions) => Effect.Effect<Aliases.Protected>
  /**
   * What the last finished scan found, without scanning (undefined before a first one): what a sandbox may start
   * from before `of` has checked it. Read again after `of`: a scan that started after `of` was asked, with an
   * unchanged version, means every scan in between found the same (a failed `of` leaves an older scan there).
   */
  readonly known: (root: string) => Effect.Effect<Known | undefined>
  /**
   * The tree's files the workspace repository's configuration makes git's (core.hooksPath's folder, included config
   * files): protected for change as `.git/hooks` and `.git/config` are. Read fresh on each ask, with every git
   * folder the workspace scan finds (a nested repository's config may name any folder of the workspace). `near`:
   * paths whose own repositories inside the workspace count too, whatever the scan says.
   */
  readonly treeControls: (root: string, home: string | undefined, near?: ReadonlyArray<string>) => Effect.Effect<TreeControls.TreeControls>
}

export type Scope = "all" | "single-link"

export interface OfOptions {
  /**
   * The asker is a long call (grep over the tree): the answer may cost more now rather than make the adapter keep
   * memory for the calls after it (no inotify watchers set for it: 25,000 folders' watchers held ~30 MB resident).
   */
  readonly long?: boolean
}

export class ProtectedAliases extends Context.Tag("minicode/ProtectedAliases")<ProtectedAliases, ProtectedAliasesShape>() {}

/** For compositions without a real workspace scan (the in-memory ones): names alone are judged there. */
export const nothing: ProtectedAliasesShape = { of: () => Effect.succeed(Aliases.none), known: () => Effect.succeed(undefined), treeControls: () => Effect.succeed(TreeControls.none) }
