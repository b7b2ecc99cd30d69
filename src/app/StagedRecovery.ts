/**
 * `minicode recover --staged [--discard]`: the staged bash calls of a workspace that never merged (their process
 * killed, a timeout) or that keep refused or conflicting changes (adapters/staged/Staging), in words; `--discard`
 * removes their staging. Their writes never reached the workspace, so dropping them loses nothing of the tree. Paths
 * and commands are shown with control characters made visible (a name holding an escape sequence prints as text).
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import * as Staging from "../adapters/staged/Staging.js"
import * as Visible from "../domain/core/Visible.js"

export interface Listed {
  readonly lines: ReadonlyArray<string>
  readonly count: number
}

export const list = (workspace: string, discard: boolean): Effect.Effect<Listed> =>
  Effect.sync(() => {
    const root = fs.realpathSync(workspace)
    const calls = Staging.pending(root)
    const lines = calls.map((c) => {
      const when = new Date(c.startedAt).toISOString()
      const what = c.state === "kept"
        ? `keeps ${c.kept?.length ?? 0} change(s) not merged: ${(c.kept ?? []).map((k) => `${Visible.line(k.path)} (${Visible.line(k.why)})`).join(", ")}`
        : "never merged (its process was killed or the command timed out): the workspace holds none of its writes"
      return `- staged call ${c.id} (${when}) \`${Visible.line(c.command)}\`: ${what}${discard ? "; discarded" : ""}`
    })
    if (discard) for (const c of calls) Staging.discard(c.dir)
    return { lines, count: calls.length }
  })
