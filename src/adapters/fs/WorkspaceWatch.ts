/**
 * A watch over the whole workspace for `mcp serve`'s resource subscriptions (the repo map): one recursive
 * `fs.watch` while someone is subscribed, changes coalesced (one call per `quietMs` at most), minicode's own state
 * (`.minicode/`, which every journaled call writes) and git's folder left out. Never throws: a watch that cannot be
 * made (no inotify watches left) is no watch, and `start` says why.
 */
import * as fs from "node:fs"

export interface Watching {
  readonly stop: () => void
}

const ignored = (relative: string) => {
  const first = relative.split("/")[0] ?? ""
  return first === ".minicode" || first === ".git"
}

/** Watches `root`; `onChange` runs after a change, once per `quietMs` at most. */
export const start = (root: string, onChange: () => void, quietMs = 250): Watching | { readonly failed: string } => {
  let timer: NodeJS.Timeout | undefined
  let watcher: fs.FSWatcher
  try {
    watcher = fs.watch(root, { recursive: true, persistent: false }, (_event, name) => {
      if (name !== null && ignored(String(name))) return
      if (timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        onChange()
      }, quietMs)
    })
  } catch (cause) {
    return { failed: cause instanceof Error ? cause.message : String(cause) }
  }
  watcher.on("error", () => undefined)
  return {
    stop: () => {
      if (timer !== undefined) clearTimeout(timer)
      watcher.close()
    }
  }
}
