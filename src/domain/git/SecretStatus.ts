/**
 * Whether a tracked secret file changed in the working tree, judged without its content. Comparing the file with the
 * index's blob (what `git status` does when the stat data disagree) is an oracle: bash can set the index entry to
 * the blob of a guess (`git update-index --cacheinfo 100644,<id of "TOKEN=1234">,.env`), and the answer, clean or
 * modified, tells whether the guess was the secret. So the answer here comes from the stat data git recorded in the
 * index (`git ls-files --stage --debug`) against the file's own: size, modification time and inode. None of them
 * depends on the content, and bash can already read them in the index. Whatever does not match, an entry
 * rewritten by bash (its stat data zero), or one git itself could not trust (written in the same tick as the index
 * file, "racily clean"), is shown as modified. Pure: the caller lists the index and stats the files.
 */
export interface Entry {
  readonly mode: string
  readonly id: string
  readonly stage: string
  readonly path: string
  /** The stat data git recorded; undefined when the `--debug` block was not understood. */
  readonly stat: { readonly mtimeMs: number; readonly size: number; readonly ino: number } | undefined
}

const record = /(\d{6}) ([0-9a-f]{40,64}) (\d)\t([^\0]*)\0((?: {2}[^\n]*\n)*)/g

/** The records of `git ls-files -z --stage --debug`: each `<mode> <id> <stage>\t<path>\0` (path as is) and its indented block. */
export const parse = (text: string): ReadonlyArray<Entry> =>
  [...text.matchAll(record)].map((m) => {
    const block = m[5] ?? ""
    const mtime = /^ {2}mtime: (\d+):(\d+)$/m.exec(block)
    const ino = /\bino: (\d+)$/m.exec(block)
    const size = /^ {2}size: (\d+)\b/m.exec(block)
    const stat =
      mtime === null || ino === null || size === null
        ? undefined
        : { mtimeMs: Number(mtime[1]) * 1000 + Number(mtime[2]) / 1e6, size: Number(size[1]), ino: Number(ino[1]) }
    return { mode: m[1] ?? "", id: m[2] ?? "", stage: m[3] ?? "", path: m[4] ?? "", stat }
  })

/** A file as lstat sees it now (modification time in milliseconds, fractional). */
export interface OnDisk {
  readonly kind: string
  readonly size: number
  readonly ino: number
  readonly mtimeMs: number
}

/** Two times the same within a microsecond (Node's milliseconds are a double: nanoseconds do not survive). */
const same = (a: number, b: number) => Math.abs(a - b) < 0.001

/**
 * The worktree column of `git status --short` for one tracked secret: " " unchanged, "M", "D", "T" or "U" (unmerged),
 * from the entry, the file (none when absent) and the index file's own modification time.
 */
export const worktree = (entry: Entry, file: OnDisk | undefined, indexMtimeMs: number | undefined): string => {
  if (entry.stage !== "0") return "U"
  if (file === undefined) return "D"
  if (file.kind !== "file") return "T"
  const s = entry.stat
  if (s === undefined || indexMtimeMs === undefined) return "M"
  const matches = s.size === file.size && s.ino === file.ino && same(s.mtimeMs, file.mtimeMs)
  const racy = s.mtimeMs >= indexMtimeMs || same(s.mtimeMs, indexMtimeMs)
  return matches && !racy ? " " : "M"
}
