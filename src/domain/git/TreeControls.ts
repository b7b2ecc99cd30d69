/**
 * Files of the working tree that the repository's own configuration makes git's: the folder `core.hooksPath` names
 * (git runs what is there as hooks, as it would `.git/hooks`) and the files `include.path` / `includeIf.*.path`
 * name (git reads them as its configuration, as it would `.git/config`). Pure: the caller reads the repository's
 * config files (and the files they include) and hands their text here.
 *
 * Was a hole (red team): with `core.hooksPath = .githooks` (husky and many projects set it), write_file
 * `.githooks/pre-commit` or bash writing `.githooks/post-commit` ran the program on the user's next `git commit`;
 * with `include.path = ../project.gitconfig`, write_file put a `core.fsmonitor` there that the user's `git status`
 * ran; with `core.fsmonitor = ./fsmon.sh`, write_file replaced the script the user's `git status` runs; with
 * `init.templateDir` naming a folder of a dotfiles workspace, write_file put a `hooks/post-checkout` there that the
 * user's next `git clone` ran. The `.git`
 * names never covered them: these are ordinary names made git's by configuration.
 */
import * as P from "../jail/PosixPath.js"
import * as GitConfig from "./GitConfig.js"

export interface TreeControls {
  /**
   * Absolute folders whose files git runs as hooks, lexically (not resolved through links): what `core.hooksPath`
   * names, and the template folder `init.templateDir` names with its `hooks/` (copied into every repository the
   * user makes or clones).
   */
  readonly hooks: ReadonlyArray<string>
  /** Absolute config files the repository's config includes. */
  readonly configs: ReadonlyArray<string>
  /** Absolute programs a program-naming key names by a path (`core.fsmonitor = ./fsmon.sh`, `!scripts/x` aliases). */
  readonly programs: ReadonlyArray<string>
}

export const none: TreeControls = { hooks: [], configs: [], programs: [] }

/**
 * The program a value names by a path, or undefined (a bare name goes through PATH): its first word, a leading `!`
 * (shell aliases) and quotes taken off. Git runs it from the top of the working tree.
 */
const programPath = (value: string): string | undefined => {
  const first = value.trim().replace(/^!\s*/, "").split(/\s+/)[0]?.replace(/^["']|["']$/g, "") ?? ""
  return first.includes("/") ? first : undefined
}

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
  const programs: Array<string> = []
  for (const e of parsed.entries) {
    if (e.section === "core" && e.name === "hookspath" && e.value !== undefined && e.value.trim() !== "") {
      const v = expandHome(e.value.trim(), home)
      if (v !== undefined) {
        const folder = P.resolve(worktree, v)
        hooks.push(folder)
        // husky 9 points git at `.husky/_`, whose stubs run the hook of the same name in the folder above.
        if (P.basename(folder) === "_") hooks.push(P.dirname(folder))
      }
    } else if (e.section === "init" && e.name === "templatedir" && e.value !== undefined && e.value.trim() !== "") {
      // `git init` and `git clone` copy the template folder into each new git folder: its `hooks/` run there.
      const v = expandHome(e.value.trim(), home)
      if (v !== undefined) {
        const folder = P.resolve(worktree, v)
        hooks.push(folder, P.join(folder, "hooks"))
      }
    } else if (e.value !== undefined && GitConfig.programReason(e) !== undefined) {
      const named = programPath(e.value)
      const v = named === undefined ? undefined : expandHome(named, home)
      if (v !== undefined) programs.push(P.resolve(worktree, v))
    }
    const include = GitConfig.includePath(e)
    if (include !== undefined) {
      const v = expandHome(include, home)
      if (v !== undefined) configs.push(P.resolve(P.dirname(file), v))
    }
  }
  return { hooks, configs, programs }
}

export const merge = (a: TreeControls, b: TreeControls): TreeControls => ({
  hooks: [...new Set([...a.hooks, ...b.hooks])],
  configs: [...new Set([...a.configs, ...b.configs])],
  programs: [...new Set([...a.programs, ...b.programs])]
})

/** The controls inside the workspace `root` (the rest is no tool's to write). */
export const within = (root: string, controls: TreeControls): TreeControls => ({
  hooks: controls.hooks.filter((h) => h !== root && P.isInside(root, h)),
  configs: controls.configs.filter((c) => c !== root && P.isInside(root, c)),
  programs: controls.programs.filter((c) => c !== root && P.isInside(root, c))
})

/**
 * Why changing `absolute` would change what git runs or reads as configuration, or undefined. `structure` (a move,
 * a removal, a folder replaced): a folder holding a control is one too, as moving it away lets a new one be made.
 */
export const changeReason = (controls: TreeControls, absolute: string, structure: boolean): string | undefined => {
  for (const h of controls.hooks) {
    if (P.isInside(h, absolute)) return `${absolute === h ? "it is" : "it is in"} a hooks folder git's configuration names (core.hooksPath, init.templateDir): git runs what is there on the user's next commit or clone, as it would .git/hooks`
    if (structure && P.isInside(absolute, h)) return `it holds a hooks folder git's configuration names (core.hooksPath, init.templateDir)`
  }
  for (const c of controls.configs) {
    if (absolute === c) return "git's configuration includes it (the repository's or the user's): git reads it as its own configuration, as it would .git/config"
    if (structure && P.isInside(absolute, c)) return "it holds a file git's configuration includes"
  }
  for (const c of controls.programs) {
    if (absolute === c) return "git's configuration names it as a program: git runs it on the user's next git command"
    if (structure && P.isInside(absolute, c)) return "it holds a program git's configuration names"
  }
  return undefined
}
