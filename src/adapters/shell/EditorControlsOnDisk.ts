/**
 * The files at the top of the workspace that the user's editor or agent runs commands from
 * (`domain/files/EditorControls`: `.claude/settings.json`, `.vscode/tasks.json`, `.mcp.json`, `mise.toml`…), for a
 * writable sandboxed call: those that exist are shown read-only for the call; one the call made (absent before)
 * that runs something, or cannot be read, or is a symlink, is removed when the call ends.
 *
 * Was a hole (issue 19, red team): sandboxed bash wrote `.claude/settings.json` with a `PreToolUse` hook; the user's
 * next start of Claude Code in the folder ran it outside any sandbox. Below the top, the workspace scan finds them
 * (`WorkspaceScan`'s `control` hits): was a hole (issue 19, red team): bash wrote `packages/web/.vscode/tasks.json`
 * with a `folderOpen` task, and it stayed for the user's next opening of that package's folder (the file tools
 * refused it at any depth, bash did not).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as EditorControls from "../../domain/files/EditorControls.js"
import { beneath } from "../fs/Beneath.js"

const fixed = [
  ".claude/settings.json", ".claude/settings.local.json", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/mcp.json",
  ".cursor/mcp.json", ".cursor/hooks.json", ".roo/mcp.json", ".amazonq/mcp.json", ".kiro/settings/mcp.json", ".gemini/settings.json", ".opencode/opencode.json", ".opencode/opencode.jsonc",
  ".devcontainer/devcontainer.json", ".config/mise.toml", ".config/mise/config.toml", ".mise/config.toml", "mise/config.toml"
]

/** The folders on the way: a symlink the call makes there (`.vscode -> cfg`) would lead a later write of `cfg/tasks.json` into place. */
const folders = [".claude", ".vscode", ".cursor", ".gemini", ".opencode", ".roo", ".amazonq", ".kiro", ".kiro/settings", ".devcontainer", ".config", ".config/mise", ".mise", "mise"]

const lstat = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** The workspace-relative control paths to look at: the fixed ones and the top's own (`.mcp.json`, `mise.*.toml`, `*.code-workspace`). */
const candidates = (workspace: string): ReadonlyArray<string> => {
  let top: ReadonlyArray<string> = []
  try {
    top = fs.readdirSync(workspace).filter((n) => EditorControls.kindOf(n) !== undefined)
  } catch {
    // An unlistable top: the fixed names only.
  }
  return [...new Set([...fixed, ...top])]
}

/** The control files that exist now (absolute paths), as regular files or anything else standing there. */
export const present = (workspace: string): ReadonlyArray<string> =>
  [...folders, ...candidates(workspace)].map((rel) => path.join(workspace, rel)).filter((p) => lstat(p) !== undefined)

/** Those of `present` that are regular files: what a writable sandbox shows read-only. */
export const files = (existing: ReadonlyArray<string>): ReadonlyArray<string> =>
  existing.filter((p) => {
    try {
      // Only where the path says (no symlink on the way): nothing outside the workspace is bound over.
      return lstat(p)?.isFile() === true && fs.realpathSync.native(path.dirname(p)) === path.dirname(p)
    } catch {
      return false
    }
  })

/**
 * Removes what the call made at a control path that was absent before (`before`, from `present` and the scan's
 * controls): a symlink (there or at a folder on the way), a hard link, or a file whose content runs something or
 * cannot be read. A file that runs nothing stays (an honest settings file). `found`: the controls the scan found
 * after the call, at any depth (absolute paths).
 */
export const leave = (workspace: string, before: ReadonlyArray<string>, found: ReadonlyArray<string> = []): ReadonlyArray<string> => {
  const had = new Set(before)
  const removed: Array<string> = []
  for (const rel of folders) {
    const p = path.join(workspace, rel)
    if (had.has(p) || lstat(p)?.isSymbolicLink() !== true) continue
    try {
      beneath(p, (at) => fs.unlinkSync(at))
      removed.push(p)
    } catch {
      // Its folder moved (a symlink on the way): removed with that one, or outside the workspace.
    }
  }
  const below = found.filter((p) => p.startsWith(workspace + "/") && !had.has(p)).map((p) => path.relative(workspace, p))
  for (const rel of [...new Set([...candidates(workspace), ...below])]) {
    const p = path.join(workspace, rel)
    const kind = EditorControls.kindOf(rel)
    const st = lstat(p)
    if (!had.has(p) && st?.isSymbolicLink() === true && EditorControls.folderNames.has(path.basename(p).toLowerCase())) {
      // A folder's name leading elsewhere (`app/.vscode -> ../cfg`), made by the call.
      try {
        beneath(p, (at) => fs.unlinkSync(at))
        removed.push(p)
      } catch {
        // Its folder moved (a symlink on the way): nothing is made or removed outside the workspace.
      }
      continue
    }
    if (had.has(p) || kind === undefined || st === undefined || st.isDirectory()) continue
    try {
      const runs = st.isSymbolicLink() || !st.isFile() || st.nlink > 1 || (() => {
        const found = EditorControls.runnersOf(kind, beneath(p, (at) => fs.readFileSync(at, "utf8")))
        return !found.ok || found.runners.length > 0
      })()
      if (runs) {
        beneath(p, (at) => fs.unlinkSync(at))
        removed.push(p)
      }
    } catch {
      // Its folder moved (a symlink on the way): nothing is made or removed outside the workspace.
    }
  }
  return removed
}
