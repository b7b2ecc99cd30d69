/**
 * What a file tool will leave, known before it runs: it lets recovery and undo accept a call that crashed after
 * its effect. Unknown (bash, git, a failing edit) is simply absent.
 */
import { Either } from "effect"
import * as Edit from "../files/Edit.js"
import type { ToolCall } from "../core/Tools.js"

/** A path's state: content null = absent (or not a regular file). Structurally the Journal port's Snapshot. */
export interface State {
  readonly path: string
  readonly content: Uint8Array | null
  readonly mode: number | null
}

const none: Plan = { intended: [] }

/**
 * What a call will leave, and for `edit_file` the edit's outcome on the bytes in `before` (success or the reason it
 * fails): the edit is applied here, once; the file tool writes `edited` rather than applying it again.
 */
export interface Plan {
  readonly intended: ReadonlyArray<State>
  readonly edited?: Edit.Outcome | undefined
  /** For `write_file`, the bytes it will write (`Edit.written`: a replaced file's BOM kept). */
  readonly written?: { readonly bytes: Uint8Array; readonly bomKept: boolean } | undefined
}

/** `before` maps a shown path to its state before the call; `shown(field)` is the shown path of an argument. */
export const intendedOf = (
  call: ToolCall,
  before: ReadonlyMap<string, State>,
  shown: (field: string) => string | undefined
): ReadonlyArray<State> => planOf(call, before, shown).intended

export const planOf = (
  call: ToolCall,
  before: ReadonlyMap<string, State>,
  shown: (field: string) => string | undefined
): Plan => {
  const at = (field: string) => {
    const path = shown(field)
    return path === undefined ? undefined : { path, before: before.get(path) }
  }
  switch (call.tool) {
    case "write_file": {
      const p = at("path")
      if (p === undefined) return none
      const written = Edit.written(p.before?.content ?? undefined, call.args.content)
      return { intended: [{ path: p.path, content: written.bytes, mode: p.before?.mode ?? 0o644 }], written }
    }
    case "delete_file": {
      const p = at("path")
      return { intended: p === undefined ? [] : [{ path: p.path, content: null, mode: null }] }
    }
    case "edit_file": {
      const p = at("path")
      const content = p?.before?.content
      if (p === undefined || content === null || content === undefined) return none
      const edited = Edit.applyTo(content, call.args)
      return { intended: Either.isRight(edited) ? [{ path: p.path, content: edited.right.after, mode: p.before?.mode ?? null }] : [], edited }
    }
    case "move_file": {
      const from = at("from")
      const to = at("to")
      if (from === undefined || to === undefined || from.before?.content == null) return none
      return {
        intended: [
          { path: from.path, content: null, mode: null },
          { path: to.path, content: from.before.content, mode: from.before.mode }
        ]
      }
    }
    default:
      return none
  }
}
