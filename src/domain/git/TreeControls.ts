/**
 * Files of the working tree that the repository's own configuration makes git's: the folder `core.hooksPath` names
 * (git runs what is there as hooks, as it would `.git/hooks`) and the files `include.path` / `includeIf.*.path`
 * name (git reads them as its configuration, as it would `.git/config`). Pure: the caller reads the repository's
 * config files (and the files they include) and hands their text here.
 *
 * Was a hole (red team): with `core.hooksPath = .githooks` (husky and many projects set it), write_file
 * `.githooks/pre-commit` or bash writing `.githooks/post-commit` ran the program on the user's next `git commit`;
 * with `include.path = ../project.gitconfig`, write_file put a `core.fsmonitor` there that the user's `git status`
 * ran. The `.git` names never covered them: these are ordinary names made git's by configuration.
 */
import * as P from "../jail/PosixPath.js"
import * as GitConfig from "./GitConfig.js"

export interface TreeControls {
  /** Absolute folders `core.hooksPath` names, lexically (not resolved through links). */
  readonly hooks: ReadonlyArray<string>
  /** Absolute config files the repository's config includes. */
  readonly configs: ReadonlyArray<string>
}

export const none: TreeControls = { hooks: [], configs: [] }

const expandHome = (value: string, home: string | undefined): string | undefined =>
  value === "~" || value.startsWith("~/") ? (home === undefined ? undefined : home + value.slice(1)) : value.startsWith("~") ? undefined : value

/**
 * What one config file's text adds: `core.hooksPath` relative to the worktree (githooks(5): hooks run at the top of
 * the working tree), includes relative to the including file; `~/` is the home. A file git would reject adds
 * nothing (git refuses to run with it).
 */
export const fromConfig = (file: string, text: string, worktree: string, home: string | undefined): TreeControls => {
  const parsed = GitConfig.parse(text)
  if (!parsed.ok) return none
  const hooks: Array<string> = []
  const configs: Array<string> = []
  for (const e of parsed.entries) {
    if (e.section === "core" && e.name === "hookspath" && e.value !== undefined && e.value.trim() !== "") {
      const v = expandHome(e.value.trim(), home)
      if (v !== undefined) hooks.push(P.resolve(worktree, v))
    }
    const include = GitConfig.includePath(e)
    if (include !== undefined) {
      const v = expandHome(include, home)
      if (v !== undefined) configs.push(P.resolve(P.dirname(file), v))
    }
  }
  return { hooks, configs }
}

export const merge = (a: TreeControls, b: TreeControls): TreeControls => ({
  hooks: [...new Set([...a.hooks, ...b.hooks])],
  configs: [...new Set([...a.configs, ...b.configs])]
})

/** The controls inside the workspace `root` (the rest is no tool's to write). */
export const within = (root: string, controls: TreeControls): TreeControls => ({
  hooks: controls.hooks.filter((h) => h !== root && P.isInside(root, h)),
  configs: controls.configs.filter((c) => c !== root && P.isInside(root, c))
})

/**
 * Why changing `absolute` would change what git runs or reads as configuration, or undefined. `structure` (a move,
 * a removal, a folder replaced): a folder holding a control is one too, as moving it away lets a new one be made.
 */
export const changeReason = (controls: TreeControls, absolute: string, structure: boolean): string | undefined => {
  for (const h of controls.hooks) {
    if (P.isInside(h, absolute)) return `${absolute === h ? "it is" : "it is in"} the hooks folder the repository's core.hooksPath names: git runs what is there on the user's next commit, as it would .git/hooks`
    if (structure && P.isInside(absolute, h)) return `it holds the hooks folder the repository's core.hooksPath names`
  }
  for (const c of controls.configs) {
    if (absolute === c) return "the repository's git config includes it: git reads it as its own configuration, as it would .git/config"
    if (structure && P.isInside(absolute, c)) return "it holds a file the repository's git config includes"
  }
  return undefined
}
