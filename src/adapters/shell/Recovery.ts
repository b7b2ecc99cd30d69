/**
 * What a writable call's end does (`EditorControlsOnDisk.leave`, `GitControl.leave`: a planted editor control, a git
 * hook or a repository the call made, put back or removed), for a process that died before its calls ended. Was a
 * hole (red team 9): SIGHUP (the terminal closed) or SIGKILL of the CLI while a sandboxed bash call ran left what the
 * call had planted, `sub/.git/hooks/pre-commit` in a repository it made and a `folderOpen` task, until a later
 * writable call (maybe never): the user's `git commit` in `sub` ran the hook on the host.
 *
 * `guardian`: the first writable call of a process in a workspace starts a detached `sh` (its own session: a signal
 * to the process's group or terminal does not reach it) that reads a pipe whose writing end only this process holds
 * (Node's descriptors are close-on-exec: bwrap and the rest do not inherit it). However the process ends, the
 * guardian then reads the end of input, and if a record still holds one of this process's calls, runs `minicode
 * sandbox recover <workspace>` (`recover`: as the last call's end, on the workspace as it is now); with none (every
 * call ended), it exits.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Effect, Exit } from "effect"
import * as StateHome from "../fs/StateHome.js"
import * as EditorControlsOnDisk from "./EditorControlsOnDisk.js"
import * as GitControl from "./GitControl.js"
import * as WatchedScan from "./WatchedScan.js"

/** The records a writable call leaves while it runs (in the state folder, `StateHome`), whose presence after the process ended means a call did not end. */
const records = ["editorcontrols.json", "gitcontrol.json"]

// `$1` the workspace, `$2` node, `$3` the program, `$4` this process's id, which begins the ids of its calls in a
// record (`"id":"<pid>-…"`), `$5` the workspace's state folder (outside it, StateHome: a record found in the
// workspace is never read). Another process's live call is that process's to end. Run in the background of a shell
// that exits at once, so the guardian is no process of this one's (a check that a call left no process behind finds
// none); the pipe is its fd 3, which Node leaves open when that shell exits. A short wait before recovering: bwrap's
// processes die with their parent (`--die-with-parent`, the PID namespace), and none may write after the controls
// are put back.
const script = `(read -r line <&3; for f in ${records.map((r) => `"$5/${r}"`).join(" ")}; do if grep -qs "\\"id\\":\\"$4-" "$f"; then sleep 0.3; exec "$2" "$3" sandbox recover "$1" 3<&-; fi; done) 3<&3 & exit 0`

/** Starts the guardian of this process's calls in `workspace`, run by `program` (dist/bin.js); the pipe's end, kept by the caller. */
export const guardian = (program: string, workspace: string): ChildProcess | undefined => {
  const state = StateHome.locate(workspace)
  // No state folder: no record either (a writable call cannot begin without one).
  if (state === undefined) return undefined
  try {
    const child = spawn("/bin/sh", ["-c", script, "sh", workspace, process.execPath, program, String(process.pid), state], { detached: true, stdio: ["ignore", "ignore", "ignore", "pipe"], cwd: "/" })
    child.on("error", () => undefined)
    const pipe = child.stdio[3] as (NodeJS.WritableStream & { unref?: () => void; on: (e: "error", f: () => void) => unknown }) | null | undefined
    pipe?.on("error", () => undefined)
    // Neither the shell nor the pipe keeps this process alive; the pipe closes when the process ends.
    child.unref()
    pipe?.unref?.()
    return child
  } catch {
    // No guardian (no /bin/sh, no process left to start): the next writable call puts back what a dead one left.
    return undefined
  }
}

/**
 * After a process died mid-call: what the last call's end would have put back, put back now (the calls of live
 * processes still count: then only the editor controls are, as any call's end does). Nothing when the workspace
 * has no state folder (outside it, `StateHome`: a `.minicode/` in the workspace holds no record of ours).
 */
export const recover = (workspace: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (StateHome.existing(workspace) === undefined) return
    const now = yield* Effect.exit(WatchedScan.oneShot().scan(workspace, false))
    const hits = Exit.isSuccess(now) ? now.value : []
    const controls = hits.filter((h) => h.verdict === "control").map((h) => h.path)
    const pins = hits.filter((h) => h.verdict === "pin" || h.verdict === "link").map((h) => h.path)
    yield* Effect.ignore(Effect.try(() => EditorControlsOnDisk.leave(workspace, "recover", controls)))
    yield* Effect.ignore(Effect.try(() => GitControl.leave(workspace, "recover", pins)))
  })
