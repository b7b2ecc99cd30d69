/**
 * What staged bash may leave in a git folder, pure. Git's data (objects, refs, the index, logs, `HEAD`,
 * `ORIG_HEAD`, `COMMIT_EDITMSG`, a rebase's or merge's state) is honest work of `git add/commit/stash/rebase`;
 * whatever git reads as instructions (`config`, `config.worktree`, `hooks/`, `info/attributes`, `commondir`,
 * `gitdir`, `objects/info/alternates`, legacy `branches/`/`remotes/`) and anything unknown is refused. A rebase's
 * todo list may name programs (`exec` lines): refused when it does. A new `config` (`git init`) is kept only when it
 * holds nothing but the core keys git init writes.
 */
import * as GitConfig from "../git/GitConfig.js"

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly rule: string; readonly reason: string }

const allow: Verdict = { ok: true }
const refuse = (rule: string, reason: string): Verdict => ({ ok: false, rule, reason })

/** First segments (lower-cased) of a git folder whose content is data git writes for honest work. */
const dataNames = new Set([
  "objects", "refs", "logs", "index", "head", "orig_head", "fetch_head", "merge_head", "merge_msg", "merge_mode",
  "cherry_pick_head", "revert_head", "rebase_head", "auto_merge", "commit_editmsg", "tag_editmsg", "squash_msg",
  "packed-refs", "description", "shallow", "lost-found", "rr-cache", "rebase-merge", "rebase-apply", "sequencer",
  "bisect_log", "bisect_start", "bisect_terms", "bisect_names", "bisect_expected_rev", "bisect_ancestors_ok", "gc.log",
  "fsmonitor--daemon.ipc"
])

/** Files of a rebase or cherry-pick that git runs lines of (`exec`, `x`). */
const todoFiles = new Set(["rebase-merge/git-rebase-todo", "rebase-merge/git-rebase-todo.backup", "sequencer/todo"])

/**
 * The core keys `git init` writes (and `git clone` of a plain repository), and the identity a script sets on a
 * repository it made (`git config user.name`): they name no program and no other place.
 */
const initKeys = new Set(["core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates", "core.ignorecase", "core.precomposeunicode", "core.symlinks", "user.name", "user.email"])

/** Whether a config text holds only what `git init` writes. */
export const isInitConfig = (text: string): boolean => {
  const parsed = GitConfig.parse(text)
  return parsed.ok && parsed.entries.every((e) => initKeys.has(GitConfig.keyOf(e)))
}

/** Whether a todo list names a program (`exec`/`x` lines, and `break`'s cousins that run nothing are fine). */
export const todoRunsProgram = (text: string): boolean => text.split("\n").some((l) => /^\s*(x|exec)(\s|$)/.test(l))

/**
 * Whether git's discovery takes a folder for a git folder, by what `has` says it holds: a `HEAD` beside a `commondir`
 * (a linked worktree's folder: objects, refs and config are the named folder's) or beside `objects/` and `refs/`.
 * `has` is asked for what git would accept: git follows links, so a symlink counts as either kind.
 */
export const isLayout = (has: (name: string, kind: "file" | "directory") => boolean): boolean =>
  has("HEAD", "file") && (has("commondir", "file") || (has("objects", "directory") && has("refs", "directory")))

/**
 * The first entry a folder held before a call made it a git folder that a git folder may not hold (a `config` with
 * more than `git init` writes, `hooks/`, a `commondir`, a `config.worktree`…), with the rule's reason; undefined when
 * everything there is git's data. Such entries were merged as anyone's files while the folder was no git folder:
 * completing the layout around them would make the user's own git run them (red team, issue 41).
 */
export const planted = (
  entries: Iterable<{ readonly rel: string; readonly kind: "file" | "directory" | "symlink" | "other"; readonly after?: string | undefined }>
): { readonly rel: string; readonly reason: string } | undefined => {
  for (const e of entries) {
    const verdict = judge(e.rel, e.kind, false, e.after)
    if (!verdict.ok) return { rel: e.rel, reason: verdict.reason }
  }
  return undefined
}

/** Whether judging `rel` (relative to its git folder) needs the content bash left there (and before). */
export const needsContent = (rel: string): boolean => {
  const p = rel.toLowerCase()
  return p === "config" || todoFiles.has(p)
}

/**
 * `rel`: the path relative to the git folder ("" for the folder itself). `kind`: what bash leaves there (or
 * "removed"). `existed`: whether the workspace held it before. `after`: the content left, for `needsContent` paths.
 */
export const judge = (rel: string, kind: "file" | "directory" | "symlink" | "other" | "removed", existed: boolean, after?: string): Verdict => {
  let segs = rel.split("/").filter((s) => s !== "")
  // A linked worktree's folder: its own HEAD, index and logs are data; its `gitdir`/`commondir` are not.
  // A submodule's folder (`modules/<name>/`) is a git folder of its own, judged by the same rules.
  while ((segs[0]?.toLowerCase() === "worktrees" || segs[0]?.toLowerCase() === "modules") && segs.length > 1) segs = segs.slice(2)
  if (segs.length === 0) {
    return kind === "directory" || kind === "removed" ? allow : refuse("staged.git-control", "a git folder's place holds something other than a folder")
  }
  // A folder runs nothing and names nothing: what bash leaves in it is judged file by file.
  if (kind === "directory") return allow
  const path = segs.join("/").toLowerCase()
  const first = segs[0]!.toLowerCase()
  if (kind === "symlink" || kind === "other") return refuse("staged.git-control", `${rel} in a git folder would be a ${kind === "symlink" ? "symlink" : "special file"}, which git never makes`)
  if (path === "config") {
    if (!existed && kind === "file" && after !== undefined && isInitConfig(after)) return allow
    return refuse("staged.git-config", "git's config is instructions (programs, hooks paths, other repositories): bash may not change it; use `git config` yourself")
  }
  if (path === "objects/info/alternates" || path === "objects/info/http-alternates") {
    return refuse("staged.git-control", `${rel} makes git read another repository's objects`)
  }
  if (todoFiles.has(path) && kind === "file" && (after === undefined || todoRunsProgram(after))) {
    return refuse("staged.git-program", `${rel} names a program (an exec line) your next \`git rebase --continue\` would run`)
  }
  if (path.endsWith(".lock")) return refuse("staged.git-lock", `${rel} is a lock a killed git left: it would stop your own git`)
  if (dataNames.has(first) || path === "info/exclude" || path === "info/refs" || path === "info") return allow
  return refuse("staged.git-control", `${rel} in a git folder is read by git as instructions (config, hooks, attributes, commondir, gitdir) or is unknown to minicode: bash may not leave it`)
}
