/**
 * Git tools. Two walls against programs the repository controls:
 *
 * 1. Before git runs, the repository git would use is found and inspected (`GitRepo.inspect`): every
 *    configuration file git reads there (`commondir`, `config.worktree` and includes among them). A key that runs
 *    a program (drivers, filters, textconv, fsmonitor, hooks, pagers, editors, ssh, askpass, credential helpers,
 *    `!` aliases…) or borrowed objects outside the workspace is a refusal naming the key and the file.
 * 2. Every git invocation also neutralises them on its command line and environment: no fsmonitor, no hooks, no
 *    external diff or textconv, no pager or editor, no system or global config, no replace objects or grafts, no
 *    notes, no bare repository found by accident, an empty home, and `GIT_DIR`/`GIT_WORK_TREE` set to the inspected repository.
 *    Reads run inside the read-only sandbox and `git_commit` inside the bash sandbox when one is available.
 *
 * Output never shows a protected file's content: a `git_show` revision naming a secret path (`HEAD:.env`,
 * `:.env`, `:2:.env`) or a bare blob id is refused, and a patch shows each secret file's section as one marker.
 * `git_push` runs on the host with the user's own configuration (it needs the network and credentials).
 */
import * as OutputSchemas from "../domain/mcp/OutputSchemas.js"
import { Effect, Option, Ref } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import { ToolFailed } from "../domain/core/Errors.js"
import * as GitOutput from "../domain/git/GitOutput.js"
import * as P from "../domain/jail/PosixPath.js"
import * as HistoryLinks from "../domain/git/HistoryLinks.js"
import * as SecretStatus from "../domain/git/SecretStatus.js"
import { redact } from "../domain/core/Redact.js"
import { FileSystem } from "../ports/FileSystem.js"
import { Session } from "../ports/Session.js"
import { type ProcessSpec, Shell, type ShellShape } from "../ports/Shell.js"
import type { HistoryStoreShape } from "../ports/HistoryStore.js"
import type { Invocation } from "../ports/ToolExecutor.js"
import type { Extension } from "../kernel/Executor.js"
import * as GitRepo from "./GitRepo.js"
import * as RefTips from "./RefTips.js"

const safety = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.pager=cat",
  "-c", "diff.external=",
  "-c", "core.sshCommand=ssh",
  "-c", "commit.gpgSign=false",
  "-c", "tag.gpgSign=false",
  "-c", "core.editor=true",
  "-c", "sequence.editor=true",
  "-c", "safe.bareRepository=explicit",
  "-c", "protocol.ext.allow=never",
  "-c", "diff.noprefix=false",
  "-c", "diff.mnemonicPrefix=false",
  "--no-pager",
  // Replace refs make git show another object than the one named and judged (`GIT_NO_REPLACE_OBJECTS` too).
  "--no-replace-objects"
]

/** What every git call gets; the read and commit calls add the empty home and no global configuration. */
const gitEnv = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_NO_REPLACE_OBJECTS: "1",
  // `info/grafts` rewrites parents (a history cut short hides the commits the secret walk must see): none is read.
  GIT_GRAFT_FILE: "/nonexistent/minicode-git-home/grafts",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_EXTERNAL_DIFF: "",
  LC_ALL: "C"
}

/** `$HOME` for local git calls: a path that does not exist, so no `~/` configuration or include is found. */
export const gitHome = "/nonexistent/minicode-git-home"
const isolated = { GIT_CONFIG_GLOBAL: "/dev/null", HOME: gitHome, XDG_CONFIG_HOME: gitHome, GIT_ASKPASS: "", SSH_ASKPASS: "" }
const patchFlags = ["--no-ext-diff", "--no-textconv", "--no-color", "--full-index", "--src-prefix=a/", "--dst-prefix=b/"]

/** Where git runs: reads (workspace read-only) and git_commit (the bash profile); the host shell otherwise. */
export interface Runners {
  readonly read: Effect.Effect<ShellShape>
  readonly commit: Effect.Effect<ShellShape>
  /**
   * Ids of protected content known beyond the history: bash's store check (`SecretObjects.protectedIds`), the
   * protected files' current contents, every blob a tree in the store names at a protected path, and every content
   * remembered. Any object with one is refused or hidden, whatever names it (a notes ref, a tree path, a patch).
   */
  readonly protectedIds?: Effect.Effect<ReadonlySet<string>>
  /** The history walk's result kept across processes (a one-shot CLI call then walks only a changed history). */
  readonly history?: HistoryStoreShape
  /**
   * Protected content under other names in the working tree now (a protected symlink's target, a hard link to a
   * protected file: the workspace scan's answer, `ProtectedAliases`). Their paths are secret paths to the git tools
   * at every revision: `HEAD:env/development` under `.env -> env/development` is the key before it rotated.
   */
  readonly aliases?: Effect.Effect<Aliases.Protected>
}

/**
 * What bash's sandbox must hide: the workspace repository's git folders when its history (refs, reflogs, index)
 * holds a protected file's content, with why; none when it does not. A repository git tools cannot inspect safely
 * (planted configuration) is hidden too.
 */
export type SecretHistory = { readonly gitDirs: ReadonlyArray<string>; readonly why: string } | undefined

export const make = (runners?: Runners) => Effect.map(makeTools(runners), (t) => t.extension)

/** The git tools' extension, and the check bash's sandbox uses (`secretHistory`, cached like the tools' walk). */
export const makeTools = (runners?: Runners) =>
  Effect.gen(function* () {
    const host = yield* Shell
    const fs = yield* FileSystem
    const session = yield* Session
    const walked = yield* Ref.make<{ readonly key: string; readonly blobs: ReadonlySet<string> } | undefined>(undefined)
    const read = runners?.read ?? Effect.succeed(host)
    const commitShell = runners?.commit ?? Effect.succeed(host)
    // GIT_COMMON_DIR too: git reads no `commondir` file after the inspection (one planted meanwhile from bash would
    // bring its own configuration, read by a git on the host).
    const repoEnv = (repo: GitRepo.Repo | undefined) =>
      repo === undefined ? {} : { GIT_DIR: repo.gitDir, GIT_COMMON_DIR: repo.commonDir, GIT_WORK_TREE: repo.workTree }
    const spawn = (shell: ShellShape, args: ReadonlyArray<string>, tool: string, env: Readonly<Record<string, string>>, more: Partial<ProcessSpec> = {}) =>
      shell
        .run({ command: ["git", ...safety, ...args], cwd: session.root, env: { ...gitEnv, ...env }, timeoutMs: 60_000, maxOutputBytes: session.maxOutputBytes, ...more })
        .pipe(Effect.mapError((e) => new ToolFailed({ tool, reason: e.reason })))
    const succeed = (tool: string) => (r: { readonly exitCode: number | null; readonly stdout: string; readonly stderr: string }) =>
      r.exitCode === 0
        ? Effect.succeed(r.stdout)
        : Effect.fail(new ToolFailed({ tool, reason: (r.stderr.trim() || r.stdout.trim() || `git exited with ${r.exitCode}`).split("\n").slice(0, 5).join("\n") }))
    /** Inspects the repository, then gives a runner bound to it on the chosen shell. */
    const prepare = (tool: string, shell: Effect.Effect<ShellShape>) =>
      Effect.flatMap(GitRepo.inspect(fs, tool, session.root, gitHome), (repo) => bound(tool, shell, repo))
    /** A runner bound to a repository already inspected. */
    const bound = (tool: string, shell: Effect.Effect<ShellShape>, repo: GitRepo.Repo | undefined) =>
      Effect.gen(function* () {
        // A linked worktree's or submodule's git folder outside the workspace: shown read-only in a sandbox, and
        // git_commit, which must write there, runs on the host.
        const away = repo === undefined ? [] : [...new Set([repo.gitDir, repo.commonDir])].filter((d) => !P.isInside(session.root, d))
        const sh = tool === "git_commit" && away.length > 0 ? host : yield* shell
        const env = { ...isolated, ...repoEnv(repo) }
        const raw = (args: ReadonlyArray<string>, more: Partial<ProcessSpec> = {}) => spawn(sh, args, tool, env, { readOnly: away, ...more })
        const ok = (args: ReadonlyArray<string>) => Effect.flatMap(raw(args), succeed(tool))
        const top = repo?.workTree ?? session.root
        const aliases = runners?.aliases === undefined ? Aliases.none : yield* runners.aliases
        const secret = (path: string) => {
          const abs = P.resolve(top, path)
          return Jail.sensitiveReason(abs, session.root) ?? (aliases.paths.size > 0 ? Aliases.reason({ paths: aliases.paths, inodes: new Set() }, session.root, abs) : undefined)
        }
        // What, beyond names, made a path secret: part of the history walk's key (a new alias, the same refs, must
        // walk again and find the blobs that sat at its path).
        const aliasKey = [...aliases.paths].filter((p) => Jail.sensitiveReason(p, session.root) === undefined).sort().join("\0")
        // A workspace inside a larger repository (its top above): the tools see only the workspace's part of the
        // working tree and of each patch (git runs in the workspace, so `.` is it). Was a hole (red team): with the
        // workspace `app/`, git_diff printed every committed file outside it (the sandbox hides them: "deleted"),
        // and git_show `HEAD:other/notes.txt` a file read_file refuses.
        const scope: ReadonlyArray<string> = top === session.root ? [] : ["--", "."]
        return { repo, raw, ok, secret, top, aliasKey, scope, aliases }
      })
    type Git = Effect.Effect.Success<ReturnType<typeof prepare>>

    /**
     * Tracked secret files, judged outside git's view: the sandbox masks them (git would see an empty device and
     * fail), so status and diff exclude them and each is judged here by the stat data the index recorded, never by
     * its content (`SecretStatus`: a content comparison with an index entry bash can set is a yes/no oracle on a
     * guess). Staged changes come from the index alone.
     */
    const secretChanges = (git: Git) =>
      Effect.gen(function* () {
        const listed = yield* git.raw(["ls-files", "-z", "--stage", "--debug"], { maxOutputBytes: 256 * 1024 * 1024 })
        if (listed.exitCode !== 0) return { tracked: [], changes: [] }
        const tracked = SecretStatus.parse(listed.stdout).filter(
          (e) => e.mode.startsWith("100") && git.secret(e.path) !== undefined && P.isInside(session.root, P.resolve(git.top, e.path))
        )
        if (tracked.length === 0) return { tracked: [], changes: [] }
        const staged = new Map<string, string>()
        const cached = yield* git.raw(["diff", "--cached", "--no-renames", "--name-status", "-z", "--", ...tracked.map((t) => `:(top,literal)${t.path}`)])
        const fields = cached.stdout.split("\0")
        for (let i = 0; i + 1 < fields.length; i += 2) staged.set(fields[i + 1] ?? "", (fields[i] ?? " ").slice(0, 1))
        const index = git.repo === undefined ? Option.none() : yield* Effect.orElseSucceed(fs.lstat(P.join(git.repo.gitDir, "index")), () => Option.none())
        const indexMtime = Option.isSome(index) ? index.value.mtimeMs : undefined
        const changes: Array<{ readonly path: string; readonly x: string; readonly y: string }> = []
        for (const t of tracked) {
          if (changes.some((c) => c.path === t.path)) continue
          const st = yield* Effect.orElseSucceed(fs.lstat(P.resolve(git.top, t.path)), () => Option.none())
          const y = SecretStatus.worktree(t, Option.getOrUndefined(st), indexMtime)
          const x = staged.get(t.path) ?? " "
          if (x !== " " || y !== " ") changes.push({ path: t.path, x, y })
        }
        return { tracked: [...new Set(tracked.map((t) => t.path))], changes }
      })
    /** Status and diff of the worktree with tracked secrets excluded, and what changed in them. */
    const worktree = (git: Git, pathspec: ReadonlyArray<string>) =>
      Effect.map(secretChanges(git), ({ tracked, changes }) => ({
        changes,
        pathspec: tracked.length === 0 ? pathspec : ["--", ...(pathspec.length === 0 ? [":/"] : pathspec.slice(1)), ...tracked.map((p) => `:(exclude,top,literal)${p}`)]
      }))

    const status = Effect.gen(function* () {
      const git = yield* prepare("git_status", read)
      const { changes, pathspec } = yield* worktree(git, git.scope)
      const text = yield* git.ok(["status", "--short", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty", ...pathspec])
      const extra = changes.map((c) => `${c.x}${c.y} ${Jail.display(session, P.resolve(git.top, c.path))}`)
      const shown = out([text.replace(/\n$/, ""), ...extra].join("\n"), "clean")
      return { ...shown, structured: OutputSchemas.gitStatusContent(shown.text) }
    })

    const diff = (inv: Invocation, staged: boolean) =>
      Effect.gen(function* () {
        const git = yield* prepare("git_diff", read)
        const named = rel(inv, "path")
        const given = named.length === 0 ? git.scope : named
        // The index against HEAD reads no worktree file: nothing is masked there.
        const { changes, pathspec } = staged ? { changes: [], pathspec: given } : yield* worktree(git, given)
        const scope = inv.resolved["path"]?.lexical
        const markers = changes
          .filter((c) => c.y !== " " && (scope === undefined || P.isInside(scope, P.resolve(git.top, c.path))))
          .map((c) => `[minicode: diff of secret file ${Jail.display(session, P.resolve(git.top, c.path))} hidden]`)
        const text = yield* git.ok(["diff", ...patchFlags, "--ignore-submodules=dirty", ...(staged ? ["--staged"] : []), ...pathspec])
        return out(yield* hide([text.replace(/\n$/, ""), ...markers].filter((t) => t !== "").join("\n"), git), "no changes")
      })
    const rel = (inv: Invocation, field: string) => {
      const facts = inv.resolved[field]
      return facts === undefined ? [] : ["--", literal(Jail.display(session, facts.lexical))]
    }
    const out = (text: string, empty: string) => ({ text: redact(text.replace(/\n$/, "")) || empty, truncated: text.includes("[truncated: ") })
    /**
     * Every blob id that ever sat at a secret path (all refs' history, merges included, and the index): a patch
     * showing one under another name (`git update-index --cacheinfo …,<id>,innocent.txt` in bash) is hidden too.
     */
    const walkSecretBlobs = (git: Git) =>
      Effect.gen(function* () {
        const big = { maxOutputBytes: 64 * 1024 * 1024 }
        const log = yield* git.raw(["log", "--all", "--reflog", "--root", "-m", "--raw", "--no-abbrev", "--no-renames", "--format="], big)
        const stage = yield* git.raw(["ls-files", "-z", "--stage"], big)
        const logText = log.exitCode === 0 ? log.stdout : ""
        const stageText = stage.exitCode === 0 ? stage.stdout : ""
        const isSecret = (p: string) => git.secret(p) !== undefined
        // A protected name that was a symlink at some revision made its target a secret's content there, link
        // since removed or not (`.env -> env/development`, then `git rm .env`): followed to a fixed point
        // (`.env -> a`, `a -> b`).
        const targets = new Set<string>()
        const seen = new Set<string>()
        for (let round = 0; round < 8; round++) {
          const fresh = HistoryLinks.links(logText, stageText, HistoryLinks.widen(isSecret, targets)).filter((l) => !seen.has(`${l.id}\0${l.path}`))
          if (fresh.length === 0) break
          const contents = yield* blobTexts(git, [...new Set(fresh.map((l) => l.id))])
          for (const l of fresh) {
            seen.add(`${l.id}\0${l.path}`)
            const content = contents.get(l.id)
            const t = content === undefined ? undefined : HistoryLinks.target(git.top, l.path, content)
            if (t !== undefined) targets.add(t)
          }
        }
        return GitOutput.secretBlobIds(logText, stageText, HistoryLinks.widen(isSecret, targets))
      })
    /** Blobs' contents by id, through one `git cat-file --batch` (a missing id is left out). */
    const blobTexts = (git: Git, ids: ReadonlyArray<string>) =>
      Effect.map(git.raw(["cat-file", "--batch"], { stdin: ids.join("\n") + "\n", maxOutputBytes: 16 * 1024 * 1024 }), (r) => {
        const out = new Map<string, string>()
        if (r.exitCode !== 0) return out
        const bytes = new TextEncoder().encode(r.stdout)
        const text = new TextDecoder()
        let at = 0
        while (at < bytes.length) {
          const eol = bytes.indexOf(10, at)
          if (eol < 0) break
          const header = /^([0-9a-f]+) (\w+) (\d+)$/.exec(text.decode(bytes.subarray(at, eol)))
          if (header === null) {
            at = eol + 1
            continue
          }
          const size = Number(header[3])
          out.set(header[1] ?? "", text.decode(bytes.subarray(eol + 1, eol + 1 + size)))
          at = eol + 1 + size + 1
        }
        return out
      })
    /** The walk, once per history change: cached by the ref tips' fingerprint (`RefTips`), per repository. */
    const historyBlobs = (git: Git) =>
      Effect.gen(function* () {
        const tips = git.repo === undefined ? undefined : yield* RefTips.fingerprint(fs, [git.repo.gitDir, git.repo.commonDir])
        const key = tips === undefined ? undefined : git.aliasKey === "" ? tips : `${tips}\0aliases\0${git.aliasKey}`
        const known = yield* Ref.get(walked)
        if (key !== undefined && known !== undefined && known.key === key) return known.blobs
        const stored = key === undefined || runners?.history === undefined ? undefined : yield* runners.history.load(key)
        if (key !== undefined && stored !== undefined) {
          yield* Ref.set(walked, { key, blobs: stored })
          return stored
        }
        const blobs = yield* walkSecretBlobs(git)
        // Fingerprinted again after the walk: a change while it ran leaves nothing cached.
        const after = git.repo === undefined ? undefined : yield* RefTips.fingerprint(fs, [git.repo.gitDir, git.repo.commonDir])
        const settled = key !== undefined && after === tips
        yield* Ref.set(walked, settled ? { key, blobs } : undefined)
        if (settled && runners?.history !== undefined) yield* runners.history.save(key, blobs)
        return blobs
      })
    /** The history's secret blobs and every protected content remembered: no name, no ref needed to know one. */
    const remembered = runners?.protectedIds ?? Effect.succeed<ReadonlySet<string>>(new Set())
    const secretBlobs = (git: Git) =>
      Effect.zipWith(historyBlobs(git), remembered, (blobs, more): ReadonlySet<string> => (more.size === 0 ? blobs : new Set([...blobs, ...more])))
    const hide = (text: string, git: Git) =>
      Effect.map(secretBlobs(git), (blobs) => GitOutput.hideSecretDiffs(text, (p) => git.secret(p) !== undefined, blobs))

    /**
     * Why the commits a revision names are not all history the secret walk saw, or undefined: each must be a commit
     * (a tag of one) that a ref or a reflog reaches (`git log --all --reflog`, the walk's reach). The protection of a
     * protected symlink's target is the walk's: a commit no ref reaches was never walked. Was a hole (red team):
     * `git stash -u` of `.env -> keys/prod` and `keys/prod`, then `git stash drop`; git_show `<stash>^3:keys/prod`
     * (and the commit's patch, and a 4-digit prefix of its id) printed the key. A tree or blob id named directly
     * with a path (`<tree>:keys/prod`) is refused for the same reason; a tree alone lists names only.
     */
    const unreachedReason = (git: Git, rev: string, withPath: boolean) =>
      Effect.gen(function* () {
        const base = GitOutput.revBase(rev)
        if (base === undefined) return undefined
        if (base.startsWith("-") || /[\u0000-\u001f]/.test(base)) return `${JSON.stringify(rev)} is not a revision git tools show`
        const named = yield* git.raw(["rev-parse", "--revs-only", base])
        const positives = named.stdout.split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l))
        if (named.exitCode !== 0 || positives.length === 0) return undefined
        const kinds = yield* git.raw(["cat-file", "--batch-check=%(objecttype)"], { stdin: positives.map((id) => `${id}^{}`).join("\n") + "\n" })
        const types = kinds.stdout.split("\n").filter((l) => l !== "")
        // A tree alone lists names (a bare blob is refused below); a path looked up in one named by its id is content.
        if (kinds.exitCode !== 0 || types.length !== positives.length || types.some((t) => !(t === "commit" || (!withPath && (t === "tree" || t === "blob"))))) {
          return `${base} names a tree or blob directly, which can hold any file's content: name a commit, <commit>:<path>, or <commit>: for its tree`
        }
        const commits = positives.filter((_, i) => types[i] === "commit")
        if (commits.length === 0) return undefined
        const outside = yield* git.raw(["rev-list", "--count", ...commits, "--not", "--all", "--reflog"])
        if (outside.exitCode !== 0 || outside.stdout.trim() !== "0") {
          return `${base} names a commit no branch, tag or reflog reaches (a dropped stash, an expired amend): git tools show only the history their protection of secrets has walked`
        }
        return undefined
      })

    const show = (inv: Invocation, rev: string) =>
      Effect.gen(function* () {
        const git = yield* prepare("git_show", read)
        const paths = GitOutput.revPaths(rev)
        const looked = GitOutput.revPath(rev)
        if (looked !== undefined && looked !== "") {
          const abs = looked.startsWith("./") || looked.startsWith("../") ? P.resolve(session.root, looked) : P.resolve(git.top, looked)
          if (!P.isInside(session.root, abs)) return yield* new ToolFailed({ tool: "git_show", reason: `${rev} names ${looked}, outside the workspace (${session.root})` })
        }
        for (const p of paths) {
          const reason = git.secret(p)
          if (reason !== undefined) return yield* new ToolFailed({ tool: "git_show", reason: `${rev} names ${p}, which is protected: ${reason}` })
        }
        const unreached = yield* unreachedReason(git, rev, paths.length > 0)
        if (unreached !== undefined) return yield* new ToolFailed({ tool: "git_show", reason: unreached })
        // `<rev>:<path>` names an object already (a `^{}` after it would be read as part of the path).
        const peeled = paths.length > 0 ? rev : `${rev}^{}`
        const kind = yield* git.raw(["cat-file", "-t", "--end-of-options", peeled])
        if (kind.exitCode === 0 && kind.stdout.trim() === "blob" && paths.length === 0) {
          return yield* new ToolFailed({ tool: "git_show", reason: `${rev} is a bare blob id, which can show any file's content (secret ones included): name it as <commit>:<path>` })
        }
        if (kind.exitCode === 0 && kind.stdout.trim() === "blob") {
          const id = yield* git.raw(["rev-parse", "--verify", "--end-of-options", peeled])
          if (id.exitCode !== 0 || (yield* secretBlobs(git)).has(id.stdout.trim())) {
            return yield* new ToolFailed({ tool: "git_show", reason: `${rev} is the content of a protected file (the same blob sits at a secret path)` })
          }
        }
        // No notes: git prints them under the message, outside any section the filter judges (was a hole, red team:
        // a note written from a committed `.env` was shown whole by `git_show <commit>`).
        const named = rel(inv, "path")
        const flags = [...patchFlags, "--no-notes", "--no-show-signature", "--ignore-submodules=dirty"]
        const scoped = yield* git.ok(["show", ...flags, "--end-of-options", rev, ...(named.length === 0 ? git.scope : named)])
        // A commit that changes nothing in the workspace prints nothing at all under the workspace's pathspec.
        const text =
          scoped.trim() === "" && named.length === 0 && git.scope.length > 0
            ? `${(yield* git.ok(["show", "-s", ...flags, "--end-of-options", rev])).replace(/\n$/, "")}\n\n[minicode: no change inside the workspace]`
            : scoped
        return out(yield* hide(text, git), "(empty)")
      })

    // A path the jail judged is the path git is given: never pathspec magic (`:(glob)**`, `:!x`, `*`), which git would
    // read as other files than the one judged. Was a hole (red team): git_commit of `:(glob)**` committed `.env`.
    const literal = (p: string) => `:(literal)${p}`
    const commit = (inv: Invocation, message: string, given: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const git = yield* prepare("git_commit", commitShell)
        const paths = given.map((_, i) => {
          const facts = inv.resolved[`paths[${i}]`]
          return facts === undefined ? "" : literal(Jail.display(session, facts.lexical))
        })
        const identity = yield* userIdentity(git.repo)
        const left = yield* secretsUnder(git, paths)
        const pathspec = [...paths, ...left.map((p) => `:(exclude,top,literal)${p}`)]
        yield* git.ok(["add", "--", ...pathspec])
        const done = yield* git.ok([...identity, "commit", "--no-verify", "-m", message, "--", ...pathspec])
        const note = left.length === 0 ? [] : [`[minicode: left out of the commit, as secret files: ${left.map((p) => Jail.display(session, P.resolve(git.top, p))).join(", ")}; commit them yourself if you mean to]`]
        return out([done.replace(/\n$/, ""), ...note].join("\n"), "committed")
      })
    /**
     * The protected files (tracked or not, by name, as a protected symlink's target or a hard link to one) a commit
     * of these paths would take in: a folder given holds them. Was a hole (red team): git_commit `config` committed
     * `config/.env`, on the host for a linked worktree whose git folder is outside (inside the sandbox, git failed
     * on the masked file instead, and nothing was committed). Paths from the repository's top (`--full-name`).
     */
    const secretsUnder = (git: Git, paths: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const listed = yield* git.raw(["ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", "--", ...paths], {
          maxOutputBytes: 64 * 1024 * 1024
        })
        const left: Array<string> = []
        for (const p of new Set(listed.stdout.split("\0"))) {
          if (p === "") continue
          if (git.secret(p) !== undefined) {
            left.push(p)
            continue
          }
          if (git.aliases.inodes.size === 0) continue
          const st = yield* Effect.orElseSucceed(fs.lstat(P.resolve(git.top, p)), () => Option.none())
          if (Option.isSome(st) && st.value.nlink > 1 && git.aliases.inodes.has(Aliases.key(st.value.dev, st.value.ino))) left.push(p)
        }
        return left.sort()
      })

    /**
     * The author when the repository sets none: the user's own `user.name`/`user.email` from their global
     * configuration (read by `git config`, which runs nothing), passed as `-c` (the environment still wins).
     */
    const userIdentity = (repo: GitRepo.Repo | undefined) =>
      Effect.gen(function* () {
        if (repo !== undefined && repo.identity.name && repo.identity.email) return []
        const flags: Array<string> = []
        for (const key of ["user.name", "user.email"]) {
          if (repo !== undefined && (key === "user.name" ? repo.identity.name : repo.identity.email)) continue
          const r = yield* spawn(host, ["config", "--global", "--get", key], "git_commit", {})
          const value = r.stdout.trim()
          if (r.exitCode === 0 && value !== "" && !value.includes("\n")) flags.push("-c", `${key}=${value}`)
        }
        return flags
      })

    const push = (remote: string | undefined, branch: string | undefined) =>
      Effect.gen(function* () {
        const repo = yield* GitRepo.inspect(fs, "git_push", session.root, gitHome)
        const env = repoEnv(repo)
        const risky = yield* spawn(
          host,
          ["config", "--local", "--get-regexp", "^(core\\.sshcommand|core\\.askpass|credential\\..*|remote\\..*\\.(receivepack|uploadpack)|url\\..*)$"],
          "git_push",
          env
        )
        if (risky.stdout.trim() !== "") {
          return yield* new ToolFailed({ tool: "git_push", reason: "this repository's own config can run programs on push (sshCommand, askPass, credential helper, receivepack, url rewrite); push it yourself" })
        }
        // Only a remote the repository names (the schema already refused URLs, paths and options): a model-chosen URL
        // would push the whole history wherever it says. A remote given without a branch keeps git's own choice.
        const target = remote ?? (branch === undefined ? undefined : "origin")
        if (target !== undefined) {
          const url = yield* spawn(host, ["config", "--get", `remote.${target}.url`], "git_push", env)
          if (url.exitCode !== 0 || url.stdout.trim() === "") {
            return yield* new ToolFailed({ tool: "git_push", reason: `no remote named ${target} is configured in this repository (git remote -v lists them); git_push pushes only to a configured remote` })
          }
        }
        // A local path or file:// URL as a remote's URL would run that repository's receive-pack (and whatever its own
        // configuration names) on the host, and write outside the workspace; ext:: runs a command: pushes go over the
        // network only.
        const args = [
          "-c",
          "protocol.file.allow=never",
          "-c",
          "protocol.ext.allow=never",
          "push",
          "--no-verify",
          ...(target === undefined ? [] : ["--end-of-options", target]),
          ...(branch === undefined ? [] : [branch])
        ]
        const r = yield* spawn(host, args, "git_push", env)
        return { text: redact(`${r.stdout}${r.stderr}`.trim() || "pushed"), truncated: false, isError: r.exitCode !== 0 }
      })

    const extension: Extension = (inv) => {
      const call = inv.facts.call
      switch (call.tool) {
        case "git_status":
          return status
        case "git_diff":
          return diff(inv, call.args.staged === true)
        case "git_log":
          // Bounded as status and diff are: in a workspace inside a larger repository, only the commits touching the
          // workspace (`-- .`; a `path`, judged by the jail, is inside it). Was a hole (red team): git_log listed the
          // enclosing repository's commit subjects, commits that touch only files outside the workspace among them.
          return Effect.flatMap(prepare("git_log", read), (git) =>
            Effect.map(
              git.ok(["log", "--no-color", "--no-notes", "--no-show-signature", `-n${call.args.limit ?? 20}`, "--format=%h %ad %an%n    %s", "--date=short", ...(inv.resolved["path"] === undefined ? git.scope : rel(inv, "path"))]),
              (t) => out(t, "no commits")
            )
          )
        case "git_show":
          return show(inv, call.args.rev)
        case "git_commit":
          return commit(inv, call.args.message, call.args.paths)
        case "git_push":
          return push(call.args.remote, call.args.branch)
        default:
          return undefined
      }
    }
    const secretHistory: Effect.Effect<SecretHistory> = Effect.gen(function* () {
      const repo = yield* Effect.either(GitRepo.inspect(fs, "bash", session.root, gitHome))
      const local = (dirs: ReadonlyArray<string>) => [...new Set(dirs)].filter((d) => P.isInside(session.root, d))
      if (repo._tag === "Left") return { gitDirs: local([P.join(session.root, ".git")]), why: "git tools cannot inspect this repository safely" }
      if (repo.right === undefined) return undefined
      const dirs = local([repo.right.gitDir, repo.right.commonDir])
      if (dirs.length === 0) return undefined
      // The repository just inspected, not inspected again (`prepare`): once per sandboxed call is enough.
      const blobs = yield* Effect.either(Effect.flatMap(bound("bash", read, repo.right), historyBlobs))
      if (blobs._tag === "Left") return { gitDirs: dirs, why: "its history could not be checked for protected files" }
      return blobs.right.size > 0 ? { gitDirs: dirs, why: "its history holds a protected file" } : undefined
    })
    return { extension, secretHistory }
  })
