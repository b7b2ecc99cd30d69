/**
 * The jail's rules for git's own folder (Jail.ts judges with them): which names git takes for `.git`, what in it a
 * file tool may read, and that nothing in it is written here. Judged on a path's scoped, lower-cased segments.
 */

/**
 * A name git would take for `.git`: case-insensitively, and as macOS and Windows file systems see it (characters
 * HFS+ ignores, trailing dots and spaces, the 8.3 short name), the same normalisation git applies to itself.
 */
export const isDotGit = (seg: string): boolean => {
  // Every spelling holds a "g" and a "t" (what is stripped is invisible characters, dots and spaces): most names do not.
  if (seg.indexOf("g") === -1 || seg.indexOf("t") === -1) return false
  const bare = seg.replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, "").replace(/[. ]+$/, "")
  return bare === ".git" || bare === "git~1"
}

/**
 * Why writing here would reach git's own folder, or undefined: git reads everything in `.git/` as instructions
 * (config, hooks, `commondir`, `objects/info/alternates`, `info/attributes`), and a `.git` file (`gitdir: …`) or
 * folder anywhere redirects git. Nothing creates, changes, moves or removes either; commits go through git_commit.
 */
export const gitReason = (segs: ReadonlyArray<string>): string | undefined =>
  segs.some(isDotGit) ? "git reads .git as instructions, so it is never written, moved or removed here (commit with git_commit)" : undefined

/**
 * What a file tool may read in git's folder: its pointers, names and logs. The rest holds copies of file contents
 * (the patch `git commit -v` keeps in `COMMIT_EDITMSG`, `lost-found/`, `rr-cache/`, a rebase's patches, objects),
 * which the git tools show with protected files hidden. Was a hole (red team): read_file showed a `.env`'s patch in
 * `.git/COMMIT_EDITMSG` and its content in `.git/lost-found/other/<id>`. Linked worktrees' and submodules' git
 * folders (`worktrees/<name>/`, `modules/<name>/`) are judged the same way.
 */
const gitReadable = new Set(["head", "orig_head", "fetch_head", "merge_head", "cherry_pick_head", "revert_head", "bisect_log", "packed-refs", "refs", "logs", "info", "description", "shallow", "branches", "gitdir", "commondir", "worktrees", "modules"])

/** Why reading a path (its scoped, lower-cased segments) would show git's copies of file contents, or undefined. */
export const gitReadReasonOf = (segs: ReadonlyArray<string>): string | undefined => {
  const at = segs.findIndex(isDotGit)
  if (at === -1) return undefined
  let rest = segs.slice(at + 1)
  while ((rest[0] === "worktrees" || rest[0] === "modules") && rest.length > 2) rest = rest.slice(2)
  const first = rest[0]
  // Legacy remote definitions (`branches/<name>`: `URL#branch`; `remotes/<name>`: `URL: …`): a remote's URL with its
  // credentials, as `.git/config` holds it (red team: read_file showed `https://user:token@…`).
  if ((first === "branches" || first === "remotes") && rest.length > 1) {
    return `${first} in git's folder names remotes by their URLs, which may hold credentials (as .git/config does)`
  }
  return first === undefined || gitReadable.has(first)
    ? undefined
    : `${first} in git's folder holds copies of file contents: use the git_* tools, which hide protected files`
}

