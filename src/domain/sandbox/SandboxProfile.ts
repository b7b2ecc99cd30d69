/**
 * The OS sandbox profile, pure: which paths a sandboxed process sees and how, and the bubblewrap argv that says so.
 * The adapter gathers the facts (which system directories exist, which protected names the workspace holds) and
 * this module decides; the same rules as the jail name what is secret (`Jail.sensitiveReason`, `Jail.isStatePath`),
 * so the sandbox is a second wall around the same things, not a second opinion about them.
 *
 * The shape of every profile: system directories read-only; the workspace read-write (or read-only for servers)
 * except minicode state and every path the jail refuses by name, at any depth, which are masked (a read-only
 * `/dev/null` over a file, an empty read-only tmpfs over a folder); git's config files are shown as sanitized
 * read-only copies, and every `.git` folder is a mount point of its own (it cannot be moved or replaced);
 * `$HOME` an empty private tmpfs; a private `/tmp`; new user (all capabilities dropped), PID, IPC, UTS and (unless
 * asked) network namespaces; the sandbox dies with its parent; resource limits through bash's `ulimit` (a `bash -c`
 * script) or `prlimit` inside.
 */
import * as Jail from "../jail/Jail.js"
import * as P from "../jail/PosixPath.js"

/** Limits applied to every process in the sandbox (RLIMIT_*, through prlimit). */
export interface Limits {
  /** RLIMIT_CPU per process, in seconds. */
  readonly cpuSeconds?: number
  /** RLIMIT_FSIZE: the largest file a process may write, in bytes. */
  readonly fileSizeBytes?: number
  /** RLIMIT_NPROC, counted inside the sandbox's user namespace (and a pids cgroup where the adapter has one). */
  readonly processes?: number
  /** RLIMIT_AS: address space per process, in bytes. */
  readonly memoryBytes?: number
}

export const defaultLimits: Required<Limits> = {
  cpuSeconds: 600,
  fileSizeBytes: 4 * 1024 ** 3,
  processes: 512,
  memoryBytes: 16 * 1024 ** 3
}

/** A top-level system path as found on the host: a directory to bind read-only, or a symlink to recreate. */
export type SystemEntry =
  | { readonly path: string; readonly kind: "directory" }
  | { readonly path: string; readonly kind: "file" }
  | { readonly path: string; readonly kind: "symlink"; readonly target: string }

/** Where a system is found; the adapter keeps those that exist. */
export const systemCandidates: ReadonlyArray<string> = [
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store", "/gnu/store"
]

/** Host files that hold credentials; masked wherever they exist (bwrap cannot create them on a read-only /etc). */
export const systemSecretFiles: ReadonlyArray<string> = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/master.passwd", "/etc/shadow-", "/etc/gshadow-"]
export const systemSecretDirs: ReadonlyArray<string> = ["/etc/ssl/private", "/etc/sudoers.d"]

/** What the adapter found out about the host, once. */
export interface HostFacts {
  readonly system: ReadonlyArray<SystemEntry>
  /**
   * Host files and folders masked: the existing members of `systemSecretFiles` / `systemSecretDirs`, and the entries
   * other users may not read in the secret places the sandbox shows (HostSecrets.ts).
   */
  readonly secretFiles: ReadonlyArray<string>
  readonly secretDirs: ReadonlyArray<string>
  /** Absolute path of prlimit inside the sandbox (it sees the same /usr), when present. */
  readonly prlimit?: string | undefined
}

export type MaskKind = "file" | "directory"

/**
 * What the scan found inside the workspace: `mask` hides it (an empty read-only file or folder), `read-only` shows
 * `source` (or the path itself) read-only in its place, `pin` binds a folder onto itself so it is a mount point
 * (a mount point cannot be renamed, removed or replaced: `mv .git x` fails with EBUSY): a `.git` folder, or a folder
 * whose name a secret's protection rests on (`restsOnFolderName`).
 */
export interface Finding {
  readonly path: string
  readonly kind: MaskKind
  readonly treatment: "mask" | "read-only" | "pin"
  /** For `read-only`: the host file shown at `path` instead (a sanitized git config outside the workspace). */
  readonly source?: string | undefined
}

export interface Profile {
  /** Canonical workspace root. */
  readonly workspace: string
  readonly writable: boolean
  readonly cwd: string
  /** `$HOME` inside: an empty private tmpfs at this path. */
  readonly home: string
  readonly findings: ReadonlyArray<Finding>
  readonly network: boolean
  readonly limits: Limits
  /** Further host paths to show read-only (toolchains outside the system directories), if they exist. */
  readonly extraReadOnly?: ReadonlyArray<string> | undefined
  /**
   * Host folders never shown (minicode's state folders, `StateHome`: the records that decide what it puts back), each
   * existing: masked with an empty read-only folder where a folder the profile binds holds one. The home, /tmp and
   * /run are not bound at all.
   */
  readonly hidden?: ReadonlyArray<string> | undefined
}

/**
 * The host folders the profile binds from the host as they are (the system's, the extra read-only ones, the resolver's
 * with network), which would show a hidden folder below them; the workspace is not one (no state folder is ever
 * inside it, `StateHome.usable`).
 */
const hostBinds = (host: HostFacts, profile: Profile): ReadonlyArray<string> => [
  ...host.system.filter((e) => e.kind === "directory").map((e) => e.path),
  ...(profile.extraReadOnly ?? []),
  ...(profile.network ? ["/run/systemd/resolve", "/run/NetworkManager"] : [])
]

/**
 * The hidden folders the profile would show, to mask: those a host bind holds (the private home and /tmp are empty,
 * but a bind after them, a toolchain in `~/.local`, shows what is below it).
 */
export const hiddenMasks = (host: HostFacts, profile: Profile): ReadonlyArray<string> =>
  (profile.hidden ?? []).filter((h) => !P.isInside(profile.workspace, h) && hostBinds(host, profile).some((b) => P.isInside(b, h)))

// ---------------------------------------------------------------------------------------------------------------
// Discovering what to mask

/**
 * How the scan treats a workspace entry: mask it, show a sanitized copy (git's config files), pin it (a `.git`
 * folder: made a mount point, then looked inside), skip it, look inside, or keep it as it is.
 */
export type Classification = "mask" | "sanitize" | "pin" | "skip" | "descend" | "hold" | "keep"

/**
 * The rule per entry, for the scan of the whole workspace (every depth, ignored and vendored folders included):
 * what the jail refuses by name (`Jail.protectedName`, the one list of secret names) is masked, except git's own
 * config files, which git needs: those are shown as sanitized copies. Every `.git` folder is pinned. Entries that
 * are neither files nor folders (symlinks, sockets) are never followed and never masked: a symlink leads to a path
 * that is judged on its own.
 */
export const classify = (root: string, absolute: string, kind: "file" | "directory" | "other"): Classification => {
  if (absolute === root) return "descend"
  const name = P.basename(absolute).toLowerCase()
  const verdict = kind === "directory" ? Jail.protectedFolder(absolute, root) : Jail.protectedName(absolute, root)
  // A folder named like a secret file (`credentials/`): looked inside (its source code is shown, the rest masked by
  // name) and held in place, since what it holds is protected by its name (a rename would carry it out).
  if (verdict === undefined && kind === "directory" && Jail.protectedName(absolute, root) !== undefined) return "hold"
  if (verdict !== undefined) {
    if (kind === "other") return "skip"
    if (verdict.kind === "secret" && kind === "file" && (name === "config" || name === "config.worktree") && inGitDir(root, absolute)) return "sanitize"
    return "mask"
  }
  // A `.git` file (`gitdir: …`) is pinned too: it cannot be replaced, and the git folder it names is looked after.
  if (kind !== "directory") return kind === "file" && name === ".git" ? "pin" : "keep"
  return name === ".git" ? "pin" : "descend"
}

/**
 * Whether the protection of `absolute` (a path the jail refuses) rests on its folder's name: a credential pair
 * (`.docker/config.json`, `.config/gcloud`, `.config/minicode`). Was a hole (red team): bash renamed `.docker` to
 * `dock` (the masked file moves along inside the sandbox) and read_file then showed `dock/config.json` on the host.
 * The scan holds such a folder in place (a mount point cannot be renamed: EBUSY).
 */
export const restsOnFolderName = (root: string, absolute: string): boolean => {
  const dir = P.dirname(absolute)
  if (dir === root || !P.isInside(root, dir)) return false
  return Jail.protectedName(P.join(P.dirname(dir), "minicode-renamed", P.basename(absolute)), root) === undefined
}

const inGitDir = (root: string, absolute: string): boolean => {
  const segs = P.segments(P.relative(root, absolute)).map((s) => s.toLowerCase())
  return segs.slice(0, -1).includes(".git")
}

/**
 * Protected even when absent, where bwrap can make the mount point (only in a writable workspace): `.minicode/`
 * (a planted `.minicode/config.json` could widen a trusted workspace's policy) and `.git/hooks/` (a planted hook
 * would run outside the sandbox later; an existing one is not for the sandbox to read, as the jail refuses it).
 * Both appear as empty folders on the host when absent.
 */
export const fixedFindings = (
  root: string,
  facts: { readonly writable: boolean; readonly stateExists: boolean; readonly gitDirectory: boolean; readonly hooksExist: boolean }
): ReadonlyArray<Finding> => [
  ...(facts.stateExists || facts.writable ? [{ path: P.join(root, ".minicode"), kind: "directory" as const, treatment: "mask" as const }] : []),
  ...(facts.gitDirectory && (facts.hooksExist || facts.writable)
    ? [{ path: P.join(root, ".git", "hooks"), kind: "directory" as const, treatment: "mask" as const }]
    : [])
]

/** The folders of a git folder that hold object content (the store itself, and copies git makes of objects). */
export const objectFolders: ReadonlyArray<string> = ["objects", "lost-found", "rr-cache", "rebase-apply", "rebase-merge"]

/**
 * A loose object's file (`objects/ab/cdef…`) or a pack (`objects/pack/pack-….pack`), masked as a file; anything
 * else named to `objectMasks` is a folder.
 */
const looseObject = /\/[0-9a-f]{2}\/[0-9a-f]{38}$|\/pack\/[^/]+\.pack$/

/** Masks over folders (already resolved, existing) that hold object content, and loose objects, those inside the workspace. */
export const objectMasks = (root: string, folders: ReadonlyArray<string>): ReadonlyArray<Finding> =>
  folders
    .filter((f) => P.isInside(root, f) && f !== root)
    .map((path) => ({ path, kind: looseObject.test(path) ? ("file" as const) : ("directory" as const), treatment: "mask" as const }))

/**
 * Every folder between the workspace and a masked or replaced path, pinned: a mount point cannot be renamed (EBUSY),
 * so no sandbox can move a secret's folder. Was a hole (red team): a concurrent bash call kept moving `conf/` (its
 * `.env` masked inside it, the mask moving along) between another call's scan and its mounts; bwrap then made an
 * empty `conf/.env` to mask and the real one sat unmasked at `x/conf/.env`. With `conf/` pinned in every sandbox
 * started since `conf/.env` was there, no sandbox can move it (file tools refuse to move a folder that holds a
 * protected path).
 */
export const pinAncestors = (root: string, findings: ReadonlyArray<Finding>): ReadonlyArray<Finding> => {
  const pins = new Map<string, Finding>()
  for (const f of findings) {
    if (f.treatment === "pin" || !P.isInside(root, f.path)) continue
    for (let dir = P.dirname(f.path); dir !== root && P.isInside(root, dir) && !pins.has(dir); dir = P.dirname(dir)) {
      pins.set(dir, { path: dir, kind: "directory", treatment: "pin" })
    }
  }
  return pins.size === 0 ? findings : [...findings, ...pins.values()]
}

/** Fixed findings plus scanned ones, one per path, parents before children, children of a mask dropped. */
export const normalise = (findings: ReadonlyArray<Finding>): ReadonlyArray<Finding> => {
  const byPath = new Map<string, Finding>()
  for (const f of findings) if (!byPath.has(f.path)) byPath.set(f.path, f)
  const sorted = [...byPath.values()].sort((a, b) => P.segments(a.path).length - P.segments(b.path).length || (a.path < b.path ? -1 : 1))
  const kept: Array<Finding> = []
  for (const f of sorted) {
    if (kept.some((k) => k.treatment === "mask" && k.kind === "directory" && P.isInside(k.path, f.path))) continue
    kept.push(f)
  }
  return kept
}

/**
 * `$HOME` inside the sandbox: the user's home path, emptied, so tools that cache there still work. When the home
 * is the workspace or inside it, an empty private folder under `/tmp` instead (the workspace must stay visible).
 */
export const chooseHome = (workspace: string, hostHome: string | undefined): string =>
  hostHome === undefined || hostHome === "/" || P.isInside(workspace, hostHome) || !hostHome.startsWith("/")
    ? "/tmp/home"
    : hostHome

// ---------------------------------------------------------------------------------------------------------------
// The argv

const limitFlags = (limits: Limits): Array<string> => [
  ...(limits.cpuSeconds === undefined ? [] : [`--cpu=${Math.ceil(limits.cpuSeconds)}`]),
  ...(limits.fileSizeBytes === undefined ? [] : [`--fsize=${Math.floor(limits.fileSizeBytes)}`]),
  ...(limits.processes === undefined ? [] : [`--nproc=${Math.floor(limits.processes)}`]),
  ...(limits.memoryBytes === undefined ? [] : [`--as=${Math.floor(limits.memoryBytes)}`])
]

/** Whether the command is `bash -c <script> …`, the shell's form (NodeShell.argvOf): bash can set the limits itself. */
const isBashScript = (command: ReadonlyArray<string>): boolean =>
  (command[0] === "bash" || command[0]?.endsWith("/bash") === true) && command[1] === "-c" && command[2] !== undefined

/**
 * The `ulimit` line that bash runs before the script, on the script's first line (so bash's line numbers do not
 * move): the same soft and hard limits as prlimit's flags, without exec'ing prlimit (an extra program start per
 * call, about 1 ms of CPU and a scheduling round on a loaded machine). Bash parses a whole line before it runs
 * it, so nothing of the script runs before the limits are set, and a script that does not parse runs nothing.
 * Units are bash's: `-f` in 1024-byte blocks (512 in POSIX mode, `POSIXLY_CORRECT`), `-v` in KiB; rounded down.
 * If a limit cannot be set the call fails (126), as prlimit does.
 */
export const ulimitLine = (limits: Limits): string => {
  const set: Array<string> = []
  if (limits.cpuSeconds !== undefined) set.push(`-t ${Math.ceil(limits.cpuSeconds)}`)
  if (limits.processes !== undefined) set.push(`-u ${Math.floor(limits.processes)}`)
  if (limits.memoryBytes !== undefined) set.push(`-v ${Math.floor(limits.memoryBytes / 1024)}`)
  set.push("-c 0")
  const size = limits.fileSizeBytes === undefined
    ? ""
    : `if shopt -oq posix; then ulimit -f ${Math.floor(limits.fileSizeBytes / 512)}; else ulimit -f ${Math.floor(limits.fileSizeBytes / 1024)}; fi && `
  return `{ ${size}ulimit ${set.join(" ")}; } || exit 126; `
}

/**
 * The program run inside with the asked limits: a `bash -c` script gets them from bash's own `ulimit`; any other
 * command runs through prlimit (when prlimit exists).
 */
export const inner = (host: HostFacts, limits: Limits, command: ReadonlyArray<string>): Array<string> => {
  const flags = limitFlags(limits)
  if (flags.length === 0) return [...command]
  const [shell, , script, ...rest] = command
  if (isBashScript(command) && shell !== undefined && script !== undefined) return [shell, "-c", ulimitLine(limits) + script, ...rest]
  return host.prlimit === undefined ? [...command] : [host.prlimit, ...flags, "--core=0", "--", ...command]
}

/** Whether the asked limits can be applied to this command with these host facts. */
export const limitsEnforced = (host: HostFacts, limits: Limits, command: ReadonlyArray<string> = []): boolean =>
  limitFlags(limits).length === 0 || host.prlimit !== undefined || isBashScript(command)

/** The full `bwrap …` argument list (without the `bwrap` itself) that runs `command` under `profile`. */
export const bwrapArgs = (host: HostFacts, profile: Profile, command: ReadonlyArray<string>): Array<string> => {
  const args: Array<string> = [
    "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    ...(profile.network ? [] : ["--unshare-net"]),
    "--hostname", "minicode-sandbox",
    "--die-with-parent", "--new-session",
    // Root inside the user namespace could otherwise unmount the masks.
    "--cap-drop", "ALL"
  ]
  for (const e of host.system) {
    if (e.kind === "symlink") args.push("--symlink", e.target, e.path)
    else args.push("--ro-bind", e.path, e.path)
  }
  for (const f of host.secretFiles) args.push("--ro-bind", "/dev/null", f)
  for (const d of host.secretDirs) args.push("--tmpfs", d, "--remount-ro", d)
  // pid 1 is bwrap's own init, which carries the environment bwrap was started with.
  // /proc/sys read-only: as root on the host, uid 0 inside may write the host kernel's sysctls (they check the uid, not
  // a capability): `kernel/core_pattern` would have the kernel run a workspace program outside the sandbox.
  args.push("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger")
  args.push("--ro-bind", "/dev/null", "/proc/1/environ", "--dev", "/dev")
  args.push("--tmpfs", "/tmp")
  if (profile.home !== "/tmp" && !P.isInside("/tmp", profile.home)) args.push("--tmpfs", profile.home)
  else args.push("--dir", profile.home)
  // After the private /tmp and home: what a server needs may live below either (a clone in /tmp, ~/.nvm).
  for (const p of profile.extraReadOnly ?? []) {
    if (!P.isInside(profile.workspace, p) && Jail.sensitiveReason(p) === undefined && !Jail.isStatePath(p)) args.push("--ro-bind-try", p, p)
  }
  if (profile.network) {
    // resolv.conf is often a symlink into /run (systemd-resolved, NetworkManager).
    args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve", "--ro-bind-try", "/run/NetworkManager", "/run/NetworkManager")
  }
  for (const h of hiddenMasks(host, profile)) args.push("--tmpfs", h, "--remount-ro", h)
  args.push(profile.writable ? "--bind" : "--ro-bind", profile.workspace, profile.workspace)
  for (const f of normalise(pinAncestors(profile.workspace, profile.findings))) {
    if (!P.isInside(profile.workspace, f.path) || f.path === profile.workspace) continue
    if (f.treatment === "pin") args.push(profile.writable ? "--bind" : "--ro-bind", f.path, f.path)
    else if (f.treatment === "read-only") args.push("--ro-bind", f.source ?? f.path, f.path)
    else if (f.kind === "file") args.push("--ro-bind", "/dev/null", f.path)
    else args.push("--tmpfs", f.path, "--remount-ro", f.path)
  }
  args.push("--chdir", profile.cwd, "--")
  args.push(...inner(host, profile.limits, command))
  return args
}

/** The environment inside, over the scrubbed one: the private home and tmp; no host runtime or agent sockets. */
export const environment = (profile: Profile, base: Readonly<Record<string, string>>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(base)) {
    if (k === "XDG_RUNTIME_DIR" || k === "SSH_AUTH_SOCK" || k === "TMP" || k === "TEMP") continue
    env[k] = v
  }
  env["HOME"] = profile.home
  env["TMPDIR"] = "/tmp"
  env["PWD"] = profile.cwd
  return env
}
