/**
 * The content a file tool would leave at a path the user's editor or agent runs commands from
 * (`domain/files/EditorControls`), judged before the call goes on: write_file's content, edit_file's edit applied to
 * the file as it is, move_file's file under its new name. A folder moved onto such a name, or a symlink, is refused
 * whole (what it holds or points at is not judged here).
 */
import { Effect, Either } from "effect"
import * as Edit from "../domain/files/Edit.js"
import * as EditorControls from "../domain/files/EditorControls.js"
import type * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { ToolCall } from "../domain/core/Tools.js"
import type { FileSystemShape, FsError } from "../ports/FileSystem.js"
import * as Subtree from "./Subtree.js"

const decoder = new TextDecoder("utf-8")

/** The workspace-relative names a path is known by (as typed, as resolved, the entry itself). */
const names = (root: string, facts: Jail.PathFacts): ReadonlyArray<string> =>
  [...new Set([facts.lexical, facts.real, facts.entry])].filter((p) => p !== root && P.isInside(root, p)).map((p) => P.relative(root, p))

export const judge = (
  fs: FileSystemShape,
  root: string,
  call: ToolCall,
  resolved: Readonly<Record<string, Jail.PathFacts>>
): Effect.Effect<EditorControls.Refusal | undefined, FsError> =>
  Effect.gen(function* () {
    const textOf = (facts: Jail.PathFacts) =>
      facts.kind === "file" ? Effect.map(fs.readFile(facts.real), (b) => decoder.decode(b)) : Effect.succeed(undefined)
    const first = (rels: ReadonlyArray<string>, before: string | undefined, after: string) => {
      for (const rel of rels) {
        const refusal = EditorControls.judge(rel, before, after)
        if (refusal !== undefined) return refusal
      }
      return undefined
    }
    if (call.tool === "write_file" || call.tool === "edit_file") {
      const facts = resolved["path"]
      const rels = facts === undefined ? [] : names(root, facts)
      if (facts === undefined || !rels.some((r) => EditorControls.kindOf(r) !== undefined)) return undefined
      const before = yield* textOf(facts)
      if (call.tool === "write_file") return first(rels, before, call.args.content)
      if (facts.kind !== "file") return undefined
      const edited = Edit.applyTo(yield* fs.readFile(facts.real), call.args)
      // A failing edit changes nothing (the tool reports why).
      return Either.isRight(edited) ? first(rels, before, decoder.decode(edited.right.after)) : undefined
    }
    if (call.tool === "move_file") {
      const from = resolved["from"]
      const to = resolved["to"]
      if (from === undefined || to === undefined) return undefined
      const landing = names(root, to)
      if (from.kind === "directory") {
        const base = P.relative(root, to.entry)
        const judged = yield* Subtree.judge(fs, from.entry, (rel) => {
          const lands = base === "" ? rel : `${base}/${rel}`
          return EditorControls.kindOf(lands) === undefined
            ? { ok: true }
            : { ok: false, rule: "jail.editor-control", reason: `the folder would put ${rel} at ${lands}, a file an editor or agent runs commands from: move or write that file on its own` }
        })
        return judged._tag === "Refused" && !judged.verdict.ok ? { rule: "jail.editor-control", reason: judged.verdict.reason } : undefined
      }
      if (!landing.some((r) => EditorControls.kindOf(r) !== undefined)) return undefined
      if (from.kind !== "file") {
        return { rule: "jail.editor-control", reason: `${landing[0] ?? ""} is a file an editor or agent runs commands from, and what is moved there is not a regular file whose content can be judged` }
      }
      const after = (yield* textOf(from)) ?? ""
      return first(landing, yield* textOf(to), after)
    }
    return undefined
  })
