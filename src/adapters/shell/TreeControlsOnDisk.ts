/**
 * The tree's files the workspace repository's configuration makes git's (`domain/git/TreeControls`), read from
 * disk: its `.git/config` and `.git/config.worktree` (a linked worktree's: the common folder's `config`), with the files they include inside the workspace (an include
 * outside is no tool's to write, and is not followed). Read fresh on each ask: a configuration the user changes
 * counts at once. Each control also stands for where it leads (a hooks path through a symlink protects the folder
 * it names). Asked by the jail stage (through `ProtectedAliases.treeControls`) and by the sandbox (GitControl).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as TreeControls from "../../domain/git/TreeControls.js"

const maxIncludeDepth = 10
/** A config file bigger than this is not read for controls (git's own config files are a few KiB). */
const maxConfigBytes = 1024 * 1024

const inside = (root: string, p: string) => p === root || p.startsWith(`${root}/`)

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

/**
 * The workspace's git folder and the common folder whose `config` git reads: `.git` itself, or for a linked
 * worktree (a `.git` file, `gitdir: …`) the folder it names and that folder's `commondir`.
 */
const gitDirsOf = (root: string): { readonly gitDir: string; readonly commonDir: string } => {
  const dotGit = path.join(root, ".git")
  const text = textOf(dotGit)
  const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text.slice(0, 4096))
  const gitDir = m === null || m[1] === undefined ? dotGit : path.resolve(root, m[1])
  const common = textOf(path.join(gitDir, "commondir"))?.trim()
  return { gitDir, commonDir: common === undefined || common === "" ? gitDir : path.resolve(gitDir, common) }
}

export const read = (root: string, home: string | undefined): TreeControls.TreeControls => {
  let found = TreeControls.none
  const seen = new Set<string>()
  const visit = (file: string, depth: number) => {
    if (depth > maxIncludeDepth || seen.has(file)) return
    seen.add(file)
    const text = textOf(file)
    if (text === undefined) return
    const more = TreeControls.fromConfig(file, text, root, home)
    found = TreeControls.merge(found, more)
    for (const c of more.configs) if (inside(root, c)) visit(c, depth + 1)
  }
  const { gitDir, commonDir } = gitDirsOf(root)
  visit(path.join(commonDir, "config"), 0)
  visit(path.join(gitDir, "config.worktree"), 0)
  const real = { hooks: found.hooks.map(realOf), configs: found.configs.map(realOf), programs: found.programs.map(realOf) }
  return TreeControls.within(root, TreeControls.merge(found, real))
}
