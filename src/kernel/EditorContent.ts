/**
 * The content a file tool would leave at a path the user's editor or agent runs commands from
 * (`domain/files/EditorControls`), judged before the call goes on: write_file's content, edit_file's edit applied to
 * the file as it is, move_file's file under its new name. A folder that would put a file at such a name, or a
 * symlink at a control folder's name, is refused whole (what it holds or points at is not judged here).
 */
import { Effect, Either, Option } from "effect"
import * as Edit from "../domain/files/Edit.js"
import * as EditorControls from "../domain/files/EditorControls.js"
import * as Aliases from "../domain/jail/Aliases.js"
import type * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { ToolCall } from "../domain/core/Tools.js"
import type { FileSystemShape, FsError } from "../ports/FileSystem.js"
import * as Subtree from "./Subtree.js"

const decoder = new TextDecoder("utf-8")

/**
 * The workspace-relative names a path is known by (as typed, as resolved, the entry itself), and those an editor
 * reads it by through a symlink at a control's name (`aliases`: `config/vscode/tasks.json` is `.vscode/tasks.json`
 * with a committed `.vscode -> config/vscode`). Was a hole (red team 8): write_file of
 * `config/vscode/tasks.json` with a `folderOpen` task was judged by that name alone, and ran on the next opening.
 */
const names = (root: string, facts: Jail.PathFacts, aliases: Aliases.Protected): ReadonlyArray<string> => {
  const own = [...new Set([facts.lexical, facts.real, facts.entry])].filter((p) => p !== root && P.isInside(root, p))
  return [...new Set([...own.map((p) => P.relative(root, p)), ...own.flatMap((p) => Aliases.controlNames(aliases, root, p))])]
}

export const judge = (
  fs: FileSystemShape,
  root: string,
  call: ToolCall,
  resolved: Readonly<Record<string, Jail.PathFacts>>,
  aliases: Aliases.Protected = Aliases.none
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
      const rels = facts === undefined ? [] : names(root, facts, aliases)
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
      const landing = names(root, to, aliases)
      // A symlink moved to a control folder's name (`cfglink -> config/vscode` to `.vscode`): what it leads to
      // becomes that folder, judged by no one. Was a hole (red team 8): the tasks.json below ran on folder open.
      const moved = yield* fs.lstat(from.entry)
      if (Option.isSome(moved) && moved.value.kind === "symlink" && landing.some((r) => EditorControls.isControlFolder(r))) {
        return { rule: "jail.editor-control", reason: `${landing[0] ?? ""} is a folder an editor or agent reads command files from, and a symlink moved there would make what it leads to that folder` }
      }
      // A symlink moved onto the way a control link resolves (`.vscode -> a/vscode`, a link moved to `a`) makes the
      // control whatever it leads to.
      const way = Option.isSome(moved) && moved.value.kind === "symlink" ? Aliases.onControlWay(aliases, to.entry) : undefined
      if (way !== undefined) {
        return { rule: "jail.editor-control", reason: `${P.relative(root, to.entry)} is on the way a symlink at an editor control's name resolves (${P.relative(root, way)}), and a symlink moved there would change what the editor reads` }
      }
      if (from.kind === "directory") {
        // Every entry by the names the editor would read it by where it lands: its own, and through a symlink at a
        // control's name that leads there (`.vscode -> config/vscode`, a folder moved to `config`). A symlink at a
        // control's name inside the folder leads elsewhere once moved (`a/b/.vscode -> ../cfg` moved to `b`): refused
        // whole, as a symlink moved to that name is. Were holes: both put a `folderOpen` task where VS Code reads it.
        const judged = yield* Subtree.judge(fs, from.entry, (rel, kind) => {
          const at = P.join(to.entry, rel)
          const lands = [P.relative(root, at), ...Aliases.controlNames(aliases, root, at)]
          // A `package.json` in a moved folder is not refused (moving a package is honest work): its hook keys were
          // judged when it was written by a tool, and the top's are put back after a sandboxed call.
          const control = lands.find((r) => {
            const k = EditorControls.kindOf(r)
            return (k !== undefined && EditorControls.shownReadOnly(k)) || (kind === "symlink" && EditorControls.isControlFolder(r))
          })
          return control === undefined
            ? { ok: true }
            : { ok: false, rule: "jail.editor-control", reason: `the folder would put ${rel} at ${control}, ${kind === "symlink" ? "a symlink at a folder" : "a file"} an editor or agent ${kind === "symlink" ? "reads command files from" : "runs commands from"}: move or write that ${kind === "symlink" ? "link" : "file"} on its own` }
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
