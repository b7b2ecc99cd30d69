/**
 * `ProtectedAliases` over the sandbox's workspace scan (`WatchedScan`): the same walk the mask comes from, so what
 * bash cannot read under another name, read_file and grep refuse too. A scan that fails (the root unreadable)
 * leaves names alone to judge: the tool's own open fails then as well.
 */
import { Effect, Layer } from "effect"
import * as Aliases from "../../domain/jail/Aliases.js"
import { type OfOptions, ProtectedAliases, type Scope } from "../../ports/ProtectedAliases.js"
import * as Exposed from "./Exposed.js"
import * as TreeControlsOnDisk from "./TreeControlsOnDisk.js"
import type { WatchedScan } from "./WatchedScan.js"

export const layer = (scanner: WatchedScan) =>
  Layer.succeed(ProtectedAliases, {
    of: (root: string, scope?: Scope, options?: OfOptions) => scanner.protectedIn(root, scope, options?.long !== true).pipe(Effect.catchAllDefect(() => Effect.succeed(Aliases.none))),
    known: (root: string) =>
      Effect.sync(() => {
        const k = scanner.known(root)
        // With what an exposed call wrote (Exposed), as `of` answers: grep's fast path starts from this answer.
        return k === undefined ? undefined : { aliases: Exposed.protect(root, k.protected), version: k.version, startedAt: k.startedAt }
      }),
    // Every git folder the scan finds counts (a nested project's config may name a hooks folder anywhere in the
    // workspace); a scan that fails leaves the repositories on the written path's way (`near`).
    treeControls: (root: string, home: string | undefined, near?: ReadonlyArray<string>) =>
      scanner.gitFolders(root).pipe(
        Effect.catchAllDefect(() => Effect.succeed([])),
        Effect.map((gitFolders) => TreeControlsOnDisk.read(root, home, near, gitFolders))
      )
  })
