/**
 * The tree's files git's configuration makes git's (`domain/git/TreeControls`), read from disk: the configuration of
 * the repository the workspace is in (found walking up, as git does: its `config` and `config.worktree`, a linked
 * worktree's common `config`) and the user's and system's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
 * `/etc/gitconfig`), with every file they include. Read fresh on each ask: a configuration the user changes counts
 * at once. Each control also stands for where it leads (a hooks path through a symlink protects the folder it
 * names). Asked by the jail stage (through `ProtectedAliases.treeControls`) and by the sandbox (GitControl).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as GitConfig from "../../domain/git/GitConfig.js"
import * as TreeControls from "../../domain/git/TreeControls.js"

const maxIncludeDepth = 10
/** A config file bigger than this is not read for controls (git's own config files are a few KiB). */
const maxConfigBytes = 1024 * 1024

const textOf = (file: string): string | undefined => {
  try {
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined || !st.isFile() || st.size > maxConfigBytes) return undefined
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    try {
      return fs.readFileSync(fd, "utf8")
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return undefined
  }
}

const realOf = (p: string): string => {
  // The deepest existing ancestor resolved, the rest appended (a hooks folder not made yet still counts).
  let rest = ""
  for (let dir = p; ; dir = path.dirname(dir)) {
    try {
      return path.join(fs.realpathSync.native(dir), rest)
    } catch {
      if (dir === "/") return p
      rest = path.join(path.basename(dir), rest)
    }
  }
}

type Repo = { readonly top: string; readonly gitDir: string; readonly commonDir: string }

/**
 * The repository git finds from `root`, walking up as its discovery does: the folder holding `.git` (the top of the
 * working tree, which may be above the workspace), its git folder (`.git` itself, or for a linked worktree the folder
 * a `gitdir:` file names) and the common folder whose `config` git reads (its `commondir`). None when there is none.
 */
const repoOf = (root: string): { readonly top: string; readonly gitDir: string; readonly commonDir: string } | undefined => {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const repo = repoAt(dir)
    if (repo !== undefined) return repo
    if (dir === "/") return undefined
  }
}

/** The repository whose `.git` (a folder, or a `gitdir:` file) is in `dir`, or undefined. */
const repoAt = (dir: string): { readonly top: string; readonly gitDir: string; readonly commonDir: string } | undefined => {
  const dotGit = path.join(dir, ".git")
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(dotGit, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (st === undefined || !(st.isDirectory() || st.isFile())) return undefined
  const text = st.isFile() ? textOf(dotGit) : undefined
  const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text.slice(0, 4096))
  const gitDir = m === null || m[1] === undefined ? dotGit : path.resolve(dir, m[1])
  const common = textOf(path.join(gitDir, "commondir"))?.trim()
  return { top: dir, gitDir, commonDir: common === undefined || common === "" ? gitDir : path.resolve(gitDir, common) }
}

/**
 * The user's and the system's configuration files, which the user's own git reads in every repository (minicode's
 * git tools read none of them): `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` (else
 * `~/.config/git/config`), `$GIT_CONFIG_SYSTEM` or `/etc/gitconfig`. All of them, whatever the environment of this
 * process says: the user's next shell may not share it.
 */
const userConfigs = (home: string | undefined): ReadonlyArray<string> => {
  const env = process.env
  const out: Array<string> = []
  const global = env["GIT_CONFIG_GLOBAL"]
  if (global !== undefined && global !== "" && global !== "/dev/null") out.push(path.resolve(global))
  if (home !== undefined && home !== "") out.push(path.join(home, ".gitconfig"))
  const xdg = env["XDG_CONFIG_HOME"] !== undefined && env["XDG_CONFIG_HOME"] !== "" ? env["XDG_CONFIG_HOME"] : home === undefined || home === "" ? undefined : path.join(home, ".config")
  if (xdg !== undefined) out.push(path.join(xdg, "git", "config"))
  const system = env["GIT_CONFIG_SYSTEM"]
  out.push(system !== undefined && system !== "" && system !== "/dev/null" ? path.resolve(system) : "/etc/gitconfig")
  return [...new Set(out)]
}

/**
 * What git's configuration makes the workspace's: the repository's own (`config`, `config.worktree`) and the user's
 * and system's, each with every file it includes (followed wherever they are: an include outside may name a hooks
 * folder inside). A relative `core.hooksPath` (or program) is relative to the top of the working tree, which for a
 * workspace inside a larger repository is above it; one in the user's configuration holds in every repository, so
 * it counts at that top and at the workspace's root (a repository the user makes there later). The user's
 * configuration files themselves count as included: `~/.gitconfig` as a symlink into a dotfiles workspace is git's
 * configuration as much as `.git/config` is.
 *
 * `near`: paths whose own repositories inside the workspace count too (the path being written, the git folders a
 * sandboxed call watches): a nested project's husky hooks are its own repository's.
 *
 * Was a hole (red team): with the workspace `app/` of a repository whose `core.hooksPath = app/.githooks`, only
 * `app/.git` was read (none) and write_file replaced `.githooks/pre-commit`, which the user's next commit ran; with
 * `core.hooksPath = .githooks` or `include.path = <workspace>/git/extra.gitconfig` in `~/.gitconfig`, write_file
 * planted a hook, or a `core.fsmonitor` that the user's next `git status` ran; in a workspace holding the project
 * `projA/` (its own repository, husky's `core.hooksPath = .husky/_`), write_file replaced `projA/.husky/pre-commit`.
 */
/**
 * The repositories inside the workspace on the way from each of `near` up to `root` (a nested clone, a project of a
 * folder of projects): a hooks folder relative to one of them lies below its top, so a path's ancestors find the
 * repository that can make it git's.
 */
const nestedOn = (root: string, near: ReadonlyArray<string>): ReadonlyArray<Repo> => {
  const out = new Map<string, Repo>()
  for (const start of near) {
    for (let dir = start, depth = 0; dir !== root && dir.startsWith(`${root}/`) && depth < 64; dir = path.dirname(dir), depth++) {
      if (out.has(dir)) continue
      const repo = repoAt(dir)
      if (repo !== undefined) out.set(dir, repo)
    }
  }
  return [...out.values()]
}

/**
 * The repository a git folder the workspace scan found stands for (`WorkspaceScan`'s pins and `.git` links): a
 * `.git` folder, file or symlink is the repository of the folder holding it; a git folder by another name is a
 * linked worktree's (its `gitdir` names the worktree's `.git` file), a submodule's or a separate one (its
 * `core.worktree` names the working tree), else a bare repository's, whose hooks run in the git folder itself.
 */
const repoOfFolder = (g: string): Repo | undefined => {
  if (path.basename(g) === ".git") return repoAt(path.dirname(g))
  const common = textOf(path.join(g, "commondir"))?.trim()
  const commonDir = common === undefined || common === "" ? g : path.resolve(g, common)
  const back = textOf(path.join(g, "gitdir"))?.trim()
  if (back !== undefined && back !== "") return { top: path.dirname(path.resolve(g, back)), gitDir: g, commonDir }
  const text = textOf(path.join(commonDir, "config"))
  const parsed = text === undefined ? undefined : GitConfig.parse(text)
  const worktree = parsed?.ok === true ? parsed.entries.findLast((e) => e.section === "core" && e.name === "worktree" && e.value !== undefined)?.value : undefined
  return { top: worktree === undefined || worktree.trim() === "" ? g : path.resolve(g, worktree.trim()), gitDir: g, commonDir }
}

/**
 * `gitFolders`: every git folder of the workspace, as its scan finds them (`WorkspaceScan` pins: `.git` folders and
 * files, git folders by other names, `.git` symlinks): each one's configuration counts wherever in the workspace it
 * points. Was a hole (issue 19, red team): in a folder of projects, `projA/.git/config` had `core.hooksPath =
 * ../shared-hooks` (or an absolute path to `sibling/hooks`, `include.path` to `../common.gitconfig`, `core.fsmonitor
 * = ../tools/mon.sh`); write_file `shared-hooks/pre-commit` is not on projA's way, so projA's config was never read,
 * and the user's next `git commit` in projA ran the plant.
 */
export const read = (root: string, home: string | undefined, near: ReadonlyArray<string> = [], gitFolders: ReadonlyArray<string> = []): TreeControls.TreeControls => {
  let found = TreeControls.none
  const seen = new Set<string>()
  const visit = (file: string, depth: number, tops: ReadonlyArray<string>) => {
    // Per file and working tree: two repositories including one file each read it against their own top.
    const key = `${file}\0${tops.join("\0")}`
    if (depth > maxIncludeDepth || seen.has(key)) return
    seen.add(key)
    const text = textOf(file) ?? (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true ? textOf(realOf(file)) : undefined)
    if (text === undefined) return
    const more = tops.map((top) => TreeControls.fromConfig(file, text, top, home)).reduce(TreeControls.merge, TreeControls.none)
    found = TreeControls.merge(found, more)
    for (const c of more.configs) visit(c, depth + 1, tops)
  }
  const repo = repoOf(root)
  const byGitDir = new Map<string, Repo>()
  for (const r of [...nestedOn(root, near), ...gitFolders.flatMap((g) => repoOfFolder(g) ?? [])]) byGitDir.set(`${r.top}\0${r.gitDir}`, r)
  const nested = [...byGitDir.values()]
  for (const r of [...(repo === undefined ? [] : [repo]), ...nested]) {
    visit(path.join(r.commonDir, "config"), 0, [r.top])
    visit(path.join(r.gitDir, "config.worktree"), 0, [r.top])
  }
  const users = userConfigs(home)
  const tops = [...new Set([...(repo === undefined ? [] : [repo.top]), root, ...nested.map((r) => r.top)])]
  for (const file of users) visit(file, 0, tops)
  found = TreeControls.merge(found, { hooks: [], configs: users, programs: [] })
  const real = { hooks: found.hooks.map(realOf), configs: found.configs.map(realOf), programs: found.programs.map(realOf) }
  return TreeControls.within(root, TreeControls.merge(found, real))
}
