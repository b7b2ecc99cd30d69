/**
 * The repository a git tool would work on, found and inspected the way git would before git runs: the `.git`
 * folder or `gitdir:` file found walking up from the workspace, its `commondir`, every configuration file git reads
 * there (`config`, `config.worktree`, and the files they include, recursively) and the object stores it borrows
 * (`objects/info/alternates`). A key that runs a program (`GitConfig.programReason`), an alternate object store
 * outside the workspace, or a file that cannot be read is a refusal naming the file. Git then runs with exactly
 * this repository (`GIT_DIR`, `GIT_WORK_TREE`), so it cannot discover another one.
 */
import { Effect, Option } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import * as GitConfig from "../domain/git/GitConfig.js"
import * as P from "../domain/jail/PosixPath.js"
import type { FileSystemShape } from "../ports/FileSystem.js"

export interface Repo {
  readonly gitDir: string
  readonly commonDir: string
  readonly workTree: string
  /** Every configuration file read, in order. */
  readonly files: ReadonlyArray<string>
  /** The repository's own `user.name` / `user.email`, when set. */
  readonly identity: { readonly name: boolean; readonly email: boolean }
}

const maxIncludeDepth = 10
const maxAlternateDepth = 5
const refuse = (tool: string, reason: string) => new ToolFailed({ tool, reason: `git tools refuse repository-controlled programs: ${reason}` })

const yourself = (tool: string) => (tool === "git_push" ? "push it yourself" : tool === "git_commit" ? "commit it yourself" : "run git yourself")

const text = (fs: FileSystemShape, tool: string, path: string) =>
  Effect.gen(function* () {
    const st = yield* Effect.mapError(fs.lstat(path), (e) => refuse(tool, `cannot inspect ${path}: ${e.reason}`))
    if (Option.isNone(st)) return undefined
    if (st.value.kind !== "file") return yield* refuse(tool, `${path} is a ${st.value.kind}, not a file git tools can inspect`)
    const bytes = yield* Effect.mapError(fs.readFile(path), (e) => refuse(tool, `cannot read ${path}: ${e.reason}`))
    return new TextDecoder().decode(bytes)
  })

/** The `.git` git would find from `root`: walking up, a folder, or a file whose `gitdir:` names one. */
const discover = (fs: FileSystemShape, tool: string, root: string) =>
  Effect.gen(function* () {
    for (let dir = root; ; dir = P.dirname(dir)) {
      const dotGit = P.join(dir, ".git")
      const st = yield* Effect.mapError(fs.lstat(dotGit), (e) => refuse(tool, `cannot inspect ${dotGit}: ${e.reason}`))
      if (Option.isSome(st)) {
        if (st.value.kind === "directory") return { gitDir: dotGit, workTree: dir }
        if (st.value.kind !== "file") return yield* refuse(tool, `${dotGit} is a ${st.value.kind}, which git tools do not follow`)
        const content = (yield* text(fs, tool, dotGit)) ?? ""
        const m = /^gitdir: *(.+?)\s*$/m.exec(content)
        if (m === null) return yield* refuse(tool, `${dotGit} is a file without a gitdir: line`)
        return { gitDir: P.resolve(dir, m[1] ?? ""), workTree: dir }
      }
      if (dir === "/") return undefined
    }
  })

/**
 * A `.git` in the workspace may lead outside it only as git itself links a checkout to a repository elsewhere, which
 * the workspace cannot forge: a linked worktree (the git folder's `gitdir` file names this `.git` back) or a
 * submodule (its `core.worktree` names this folder). Was a hole (red team): bash wrote a `.git` file, `gitdir:
 * /another/repository/.git`, in a workspace that was no repository; git_show printed that repository's files and
 * git_commit, which runs on the host there, committed into it. Likewise a git folder in the workspace whose
 * `commondir` names one outside.
 */
const ownedFrom = (fs: FileSystemShape, tool: string, root: string, workTree: string, gitDir: string, commonDir: string) =>
  Effect.gen(function* () {
    const dotGit = P.join(workTree, ".git")
    if (P.isInside(root, gitDir)) {
      if (P.isInside(root, commonDir)) return
      return yield* refuse(tool, `${P.join(gitDir, "commondir")} names ${commonDir}, outside the workspace`)
    }
    const back = yield* text(fs, tool, P.join(gitDir, "gitdir"))
    if (back !== undefined && P.resolve(gitDir, back.trim()) === dotGit) return
    const config = yield* text(fs, tool, P.join(gitDir, "config"))
    const parsed = config === undefined ? undefined : GitConfig.parse(config)
    const worktree = parsed?.ok === true ? parsed.entries.find((e) => e.section === "core" && e.name === "worktree")?.value : undefined
    if (worktree !== undefined && P.resolve(gitDir, worktree) === workTree) return
    return yield* refuse(tool, `${dotGit} names ${gitDir}, outside the workspace, which does not name this checkout back (not a linked worktree or submodule of it)`)
  })

/** Finds and inspects the repository for `root`; undefined when there is none (git then says so itself). */
export const inspect = (fs: FileSystemShape, tool: string, root: string, home: string) =>
  Effect.gen(function* () {
    const found = yield* discover(fs, tool, root)
    if (found === undefined) return undefined
    const { gitDir, workTree } = found
    const common = yield* text(fs, tool, P.join(gitDir, "commondir"))
    const commonDir = common === undefined || common.trim() === "" ? gitDir : P.resolve(gitDir, common.trim())
    if (P.isInside(root, workTree)) yield* ownedFrom(fs, tool, root, workTree, gitDir, commonDir)
    const files: Array<string> = []
    const identity = { name: false, email: false }
    const visit = (file: string, depth: number): Effect.Effect<void, ToolFailed> =>
      Effect.gen(function* () {
        if (depth > maxIncludeDepth) return yield* refuse(tool, `includes nest deeper than ${maxIncludeDepth} at ${file}`)
        const content = yield* text(fs, tool, file)
        if (content === undefined) return
        files.push(file)
        const parsed = GitConfig.parse(content)
        if (!parsed.ok) return yield* refuse(tool, `cannot parse ${file} line ${parsed.line}: ${parsed.reason}`)
        for (const e of parsed.entries) {
          const reason = GitConfig.programReason(e)
          if (reason !== undefined) return yield* refuse(tool, `${GitConfig.keyOf(e)} in ${file} (line ${e.line}): ${reason}; remove it, or ${yourself(tool)}`)
          if (e.section === "user" && e.name === "name") identity.name = true
          if (e.section === "user" && e.name === "email") identity.email = true
          const include = GitConfig.includePath(e)
          if (include === undefined) continue
          const target = include.startsWith("~/") ? P.join(home, include.slice(2)) : P.resolve(P.dirname(file), include)
          yield* visit(target, depth + 1)
        }
      })
    const configs = [P.join(commonDir, "config"), P.join(gitDir, "config.worktree"), ...(commonDir === gitDir ? [] : [P.join(commonDir, "config.worktree")])]
    for (const file of configs) yield* visit(file, 0)
    const alternates = (objects: string, depth: number): Effect.Effect<void, ToolFailed> =>
      Effect.gen(function* () {
        const file = P.join(objects, "info", "alternates")
        const content = yield* text(fs, tool, file)
        if (content === undefined) return
        if (depth > maxAlternateDepth) return yield* refuse(tool, `alternates nest deeper than ${maxAlternateDepth} at ${file}`)
        for (const raw of content.split("\n")) {
          const line = raw.trim()
          if (line === "" || line.startsWith("#")) continue
          const target = P.resolve(objects, line.startsWith('"') ? line.slice(1, -1) : line)
          if (!P.isInside(root, target) && !P.isInside(commonDir, target)) {
            return yield* refuse(tool, `${file} borrows objects from ${target}, outside the workspace`)
          }
          yield* alternates(target, depth + 1)
        }
      })
    yield* alternates(P.join(commonDir, "objects"), 0)
    const repo: Repo = { gitDir, commonDir, workTree, files, identity }
    return repo
  })
