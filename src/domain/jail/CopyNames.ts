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
 * - compressed or archived copies: `x.gz`, `x.tar.gz`, `x.zip`.
 */
const decorations = [
  String.raw`\.(bak|backup|old|orig|save|saved|sw[a-px]|un~|tmp|temp|copy|prev|previous|rej|part|partial|crdownload|download|~\d+~|gz|bz2|xz|zst|lz4|lzma|z|zip|tar|tgz|7z)`,
  String.raw`\.\d[\d_:t-]*`,
  String.raw`[-_ ](bak|backup|old|orig|save|prev)`,
  String.raw`[-_]\d+`,
  "~",
  String.raw`\.sync-conflict-\d{8}-\d{6}(-[a-z0-9]+)?`,
  String.raw`[._](backup|base|local|remote)[._]\d+`,
  ` (${copyWords})( \\d+)?`,
  ` - (${copyWords})( \\(\\d+\\))?`,
  String.raw` \d+`,
  String.raw` ?\((?:[^()]|\([^()]*\))*\)`
]
/** One decoration at the end, or just before the last extension (kept, `ext`): one regex run per name. */
const tail = new RegExp(`(?:${decorations.map((d) => `(?:${d})`).join("|")})(?<ext>\\.[a-z0-9]{1,10})?$`)

const copyOf = new RegExp(`^(?:${copyWords})(?: \\(\\d+\\))? of (.+)$`)

/**
 * Wrappings around a copy's whole name: emacs `#x#` and `.#x`, Windows `Copy of x` / `Copy (2) of x`, rsync's
 * `.x.AbC123`. Looked for only in names starting with what they start with (most names do not).
 */
const unwrapped = (name: string): string | undefined => {
  const first = name.charCodeAt(0)
  if (first === 0x23 /* # */) return /^#(.+)#$/.exec(name)?.[1]
  if (first === 0x2e /* . */) return /^\.#(.+)$/.exec(name)?.[1] ?? /^\.(.+)\.[a-z0-9]{6}$/.exec(name)?.[1]
  return first > 0x7a || first === 0x63 /* c */ || first === 0x6b /* k */ || first === 0x6d /* m */ ? copyOf.exec(name)?.[1] : undefined
}

/** One decoration less, or the name itself when it has none. */
const strip = (name: string): string => {
  const bare = name.replace(tail, "$<ext>")
  // Never a hidden name out of a plain one (`(1).npmrc` is no copy of `.npmrc`).
  if (bare !== name && bare !== "" && (bare.charCodeAt(0) !== 0x2e || name.charCodeAt(0) === 0x2e)) return bare
  return unwrapped(name) ?? name
}

/** The name as it looks: compatibility forms folded (`ｉｄ_ｒｓａ`, `ⅰd_rsa`), marks and invisible characters dropped. */
const folded = (name: string): string =>
  name.normalize("NFKD").replace(/[\p{Mn}\p{Cf}]/gu, "").normalize("NFC").toLowerCase()

/**
 * A (lower-cased) name and every name it is a copy of, its decorations stripped one by one: `id_rsa (1).bak` gives
 * `id_rsa (1)` and `id_rsa`. A vim swap or rsync temporary file of `id_rsa` is `.id_rsa.swp` / `.id_rsa.XyZ123`: the
 * hidden name is given without its dot too. A name with characters beyond ASCII is also judged as it looks.
 */
export const undecorated = (seg: string): ReadonlyArray<string> => {
  const out = [seg]
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(seg)) {
    const f = folded(seg)
    if (f !== seg) out.push(f)
  }
  for (let i = 0, n = out.length; i < n; i++) {
    let name = out[i] as string
    for (;;) {
      const next = strip(name)
      if (next === name) break
      out.push(next)
      if (name.startsWith(".") && next.startsWith(".") && !next.startsWith("..")) out.push(next.slice(1))
      name = next
    }
  }
  return out
}
