/**
 * The names a copy of a file gets from editors, backup tools, merge tools, sync clients, file managers and browsers,
 * and the names it is a copy of: a copy of a secret is as secret as the original (issue 19). Pure: the jail judges
 * every name `undecorated` gives, so read_file, grep, glob, list_files, move/copy targets and the sandbox's mask
 * (`SandboxProfile.classify` -> `Jail.protectedName`) all answer the same.
 *
 * Names come in lower-cased (the jail's case rule). Decorations are stripped one at a time, as long as one is found
 * (each step shortens the name, so it ends): `.env (1) (2)`, `.env.bak~`, `Copy of id_rsa copy 2`.
 */

/** Words file managers put after a copy's name, in the languages they ship (`x copy`, `x - Kopie (2)`). */
const copyWords = "copy|kopie|copie|copia|kopia|kopio|kopi|cópia|másolat|копия|コピー|副本|복사본"

/**
 * A decoration at the end of a name (or of its stem, before its last extension: `credentials (1).json`).
 * - editors and backups: `x~`, `x.bak`, `x.orig`, `x.old`, `x.save`, `x.tmp`, `x.rej` (patch), vim's `.x.swp` /
 *   `.x.swo` / `.x.un~`, GNU's numbered `x.~1~`, `x.1`, dated `x.2024-01-01`, `x.20240101-1200`, `x_old`, `x-bak`;
 * - downloads: `x (1)`, `x(1)`, `x.part`, `x.crdownload`, `x.download`;
 * - file managers: macOS `x 2`, `x copy`, `x copy 2`, Windows `x - Copy`, `x - Copy (2)`, GNOME `x (copy)`,
 *   `x (another copy)`, `x (3rd copy)`;
 * - sync clients: Dropbox `x (Bob's conflicted copy 2024-01-01)` (and `(… (1))`), Nextcloud/ownCloud
 *   `x (conflicted copy 2024-01-01 123456)`, Seafile `x (SFConflict …)`, any parenthesised tag; Syncthing
 *   `x.sync-conflict-20240101-123456-ABCDEFG`;
 * - git mergetool: `x_BACKUP_12345`, `x_BASE_…`, `x_LOCAL_…`, `x_REMOTE_…` (and the older `x.BACKUP.12345`);
 * - compressed or archived copies: `x.gz`, `x.tar.gz`, `x.zip`, `x.rar`, `x.lz`, `x.tar.zst`;
 * - other tools' copies: JetBrains `x___jb_tmp___`, Chrome's `x.crswap`, rpm/dpkg/pacman/ucf's `x.rpmsave`,
 *   `x.dpkg-old`, `x.pacnew`, `x.ucf-dist`, Subversion's `x.mine` / `x.r42` / `x.merge-left.r41`, OneDrive's
 *   `x-DESKTOP-1A2B3C`, Unison's `.unison.x.<hash>.unison.tmp`, RCS's `x,v`, hand-made `x.bkp`, `x.new`, `x_copy`.
 */
const decorations = [
  String.raw`\.(bak\d*|bkp|bk|backup\d*|old\d*|orig|save|saved|sav|new|sw[a-px]|un~|kate-swp|autosave|tmp|temp|copy|prev|previous|rej|part|partial|crdownload|download|crswap|~\d+~|gz|bz2|xz|zst|zstd|lz4|lzma|lz|lzo|br|z|zip|rar|tar|tgz|tbz2?|txz|tlz|tzst|7z|cpio)`,
  // Package managers keeping a changed config: rpm, dpkg, pacman, ucf.
  String.raw`\.(rpmsave|rpmnew|rpmorig|dpkg-[a-z]+|pac(new|save|orig)|ucf-[a-z]+)`,
  // Subversion's conflict files: `x.mine`, `x.r42`, `x.working`, `x.merge-left.r41`.
  String.raw`\.(mine|theirs|working|r\d+|merge-(left|right|working)(\.r\d+)?)`,
  // JetBrains' safe write (`x___jb_tmp___`), RCS's history file (`x,v`).
  String.raw`_{3}jb_[a-z]+_{3}`,
  ",v",
  // OneDrive's per-device conflict copy, `x-DESKTOP-1A2B3C`: a computer name (15 characters at most) with a digit
  // or a usual device word, so `.env-example` and `index-page` are not read as copies.
  String.raw`-(?=[a-z0-9-]{0,14}\d)[a-z0-9][a-z0-9-]{0,14}`,
  String.raw`-(desktop|laptop|pc|workstation|macbook(-pro|-air)?|imac|mac|surface)(-[a-z0-9]+)?`,
  String.raw`\.\d[\d_:t-]*`,
  String.raw`[-_ ](bak|bkp|backup|old|orig|save|sav|prev|copy|new|tmp|temp)`,
  String.raw`[-_]\d+`,
  "~",
  String.raw`\.sync-conflict-\d{8}-\d{6}(-[a-z0-9]+)?`,
  String.raw`[._](backup|base|local|remote)[._]\d+`,
  ` (${copyWords})( \\d+)?`,
  ` - (${copyWords})( \\(\\d+\\))?`,
  String.raw` \d+`,
  String.raw` ?\((?:[^()]|\([^()]*\))*\)`
]
/**
 * One decoration at the end, or just before the last extension (kept, `ext`: what follows the last dot, as sync
 * clients and browsers take it, `#.env#` -> `# (1).env#`): one regex run for most names.
 */
const tail = new RegExp(`(?:${decorations.map((d) => `(?:${d})`).join("|")})(?<ext>\\.[^.]+)?$`)
const tailEnd = new RegExp(`(?:${decorations.map((d) => `(?:${d})`).join("|")})$`)
/** The same, the decoration that starts last (`x - Kopie 1` is `x - Kopie` plus macOS's ` 1`, too). */
const lastTail = new RegExp(`^(?<stem>.*)(?:${decorations.map((d) => `(?:${d})`).join("|")})(?<ext>\\.[^.]+)?$`, "s")
const lastTailEnd = new RegExp(`^(?<stem>.*)(?:${decorations.map((d) => `(?:${d})`).join("|")})$`, "s")

// The space after `of` may have gone with a decoration stripped before the extension (`Copy of  (1).envrc`).
const copyOf = new RegExp(`^(?:${copyWords})(?: \\(\\d+\\))? of ?(.+)$`)

/** Hand-made prefixes: `backup_x`, `old-x`, `bak.x`, `copy_of_x`, `orig_x`. */
const prefixed = /^(?:backup|bak|bkp|old|orig|copy|copy[_-]of|new|tmp|temp|save[d]?)[._-](.+)$/
const prefixStart = new Set([0x62, 0x6f, 0x63, 0x6e, 0x74, 0x73])

/**
 * The names one decoration less gives (none when it has none). Several when the decorations are ambiguous
 * (`#.#.ssh#.Ab12Cd#`: emacs's `.#x` or rsync's `.x.Ab12Cd`?): every reading is judged.
 * - a decoration at the end, or before the last extension;
 * - a wrapping around the whole name: emacs `#x#` and `.#x`, Windows `Copy of x` / `Copy (2) of x`, rsync's
 *   `.x.AbC123` (looked for only in names starting with what they start with: most names do not);
 * - a hidden copy (`.x`), the last decoration of vim's `.x.swp` and `.x.un~`: `x` itself.
 */
const stripped = (name: string, into: (next: string) => void): void => {
  const first = name.charCodeAt(0)
  const dotted = first === 0x2e
  const give = (next: string | undefined) => {
    if (next !== undefined && next !== "" && next !== name) into(next)
  }
  // Never a hidden name out of a plain one by a suffix (`(1).npmrc` is no copy of `.npmrc`).
  const suffixed = (next: string) => {
    if (dotted || next.charCodeAt(0) !== 0x2e) give(next)
  }
  const m = tail.exec(name)
  if (m !== null) {
    const ext = m.groups?.["ext"]
    suffixed(name.slice(0, m.index) + (ext ?? ""))
    if (ext !== undefined) suffixed(name.replace(tailEnd, ""))
    const last = lastTail.exec(name)?.groups
    if (last !== undefined) suffixed((last["stem"] ?? "") + (last["ext"] ?? ""))
    const lastEnd = lastTailEnd.exec(name)?.groups
    if (lastEnd !== undefined) suffixed(lastEnd["stem"] ?? "")
  }
  if (first === 0x23 /* # */) give(/^#(.+)#$/.exec(name)?.[1])
  else if (dotted) {
    give(/^\.#(.+)$/.exec(name)?.[1])
    // Syncthing's `.syncthing.x.tmp`, Android's `.trashed-<time>-x`, macOS's `._x`, LibreOffice's `.~lock.x#`.
    give(/^\.syncthing\.(.+)\.tmp$/.exec(name)?.[1])
    give(/^\.(?:trashed|pending)-\d+-(.+)$/.exec(name)?.[1])
    give(/^\._(.+)$/.exec(name)?.[1])
    give(/^\.~lock\.(.+)#$/.exec(name)?.[1])
    // Unison's transfer temp: `.unison.x.8f3a2c.unison.tmp` (its `.tmp` may already be stripped).
    if (name.startsWith(".unison.")) {
      give(/^\.unison\.(.+)\.[a-z0-9]+\.unison(?:\.tmp)?$/.exec(name)?.[1])
      give(/^\.unison\.(.+)\.unison(?:\.tmp)?$/.exec(name)?.[1])
    }
    give(/^\.(.+)\.[a-z0-9]{6}$/.exec(name)?.[1])
    if (name.length > 1) give(name.slice(1))
  } else if (first === 0x7e /* ~ */) {
    // Office's owner file `~$x`, Syncthing's Windows temp `~syncthing~x.tmp`, `~x`.
    give(/^~syncthing~(.+)\.tmp$/.exec(name)?.[1])
    give(/^~\$?(.+)$/.exec(name)?.[1])
  } else if (prefixStart.has(first)) give(prefixed.exec(name)?.[1])
  if (first > 0x7a || first === 0x63 /* c */ || first === 0x6b /* k */ || first === 0x6d /* m */) give(copyOf.exec(name)?.[1])
}

/**
 * More readings than this and a name is judged protected whatever they are (`Jail`): a file name (255 bytes at most)
 * never has as many, only a path segment built to have them, whose readings would take long to enumerate.
 */
export const mostReadings = 1024

/** The name as it looks: compatibility forms folded (`ｉｄ_ｒｓａ`, `ⅰd_rsa`), marks and invisible characters dropped. */
const folded = (name: string): string =>
  name.normalize("NFKD").replace(/[\p{Mn}\p{Cf}]/gu, "").normalize("NFC").toLowerCase()

/**
 * A (lower-cased) name and every name it is a copy of, its decorations stripped one by one in every reading:
 * `id_rsa (1).bak` gives `id_rsa (1)` and `id_rsa`; `.id_rsa.swp` (vim's swap file of `id_rsa`) gives `.id_rsa` and
 * `id_rsa`. A name with characters beyond ASCII is also judged as it looks. Each step shortens the name, so this
 * ends, with no step bound an adversary could stack decorations past; past `mostReadings` it stops (the list is then
 * longer than `mostReadings`, which the jail refuses).
 */
export const undecorated = (seg: string): ReadonlyArray<string> => {
  // Most names have no reading: answered without a Set.
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(seg)
  const first: Array<string> = []
  stripped(seg, (next) => first.push(next))
  if (first.length === 0 && ascii) return [seg]
  const seen = new Set([seg, ...first])
  if (!ascii) seen.add(folded(seg))
  const add = (next: string) => {
    if (seen.size <= mostReadings) seen.add(next)
  }
  // A Set iterates over what is added while it iterates.
  for (const name of seen) stripped(name, add)
  return seen.size === 1 ? [seg] : [...seen]
}
