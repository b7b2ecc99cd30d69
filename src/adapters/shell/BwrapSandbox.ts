/**
 * The Sandbox port on bubblewrap. The layer probes once (`BwrapProbe`: a success recorded per boot): bwrap on the PATH (or /usr/bin), and a throwaway sandbox
 * with the namespaces every profile uses (user, pid, ipc, uts, net) actually starting. Each wrap scans the whole
 * workspace for what the jail protects (`WatchedScan`: cached, kept fresh by inotify), shows sanitized copies
 * of git's config files from a private folder outside the workspace (cached by content), and builds the argv from the pure profile
 * (`domain/sandbox/SandboxProfile.ts`).
 *
 * Resource limits inside the sandbox: bash's `ulimit` before a `bash -c` script, prlimit in front of other commands
 * (RLIMIT_CPU, _FSIZE, _NPROC, _AS; RLIMIT_NPROC counts per user namespace). The kernel never applies RLIMIT_NPROC to host uid 0, so when minicode runs as root and a pids cgroup
 * can be created (cgroup v1 `pids` or a delegated v2 subtree) each call also runs in its own cgroup with
 * `pids.max`, removed afterwards.
 */
import type { ChildProcess } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer, type Scope } from "effect"
import * as SanitizedConfig from "../../domain/git/SanitizedConfig.js"
import * as HostSecrets from "../../domain/sandbox/HostSecrets.js"
import * as Profile from "../../domain/sandbox/SandboxProfile.js"
import { Sandbox, SandboxError, type SandboxStatus, type WrapRequest, type Wrapped } from "../../ports/Sandbox.js"
import * as Beneath from "../fs/Beneath.js"
import * as BwrapProbe from "./BwrapProbe.js"
import * as EditorControlsOnDisk from "./EditorControlsOnDisk.js"
import * as GitControl from "./GitControl.js"
import * as Exposed from "./Exposed.js"
import * as MaskGuard from "./MaskGuard.js"
import * as StateHome from "../fs/StateHome.js"
import * as Recovery from "./Recovery.js"
import * as HostWalk from "./HostWalk.js"
import * as SecretObjects from "./SecretObjects.js"
import * as WatchedScan from "./WatchedScan.js"
import type * as WorkspaceScan from "./WorkspaceScan.js"

export interface Options {
  /** Path of bwrap; found on PATH or in /usr/bin when absent. */
  readonly bwrap?: string | undefined
  /** The user's home (hidden behind an empty tmpfs); `$HOME` when absent. */
  readonly hostHome?: string | undefined
  /** Host paths shown read-only besides the system folders (toolchains under the home, say). */
  readonly extraReadOnly?: ReadonlyArray<string>
  /** Use a pids cgroup when one can be made (default: only when running as root, which RLIMIT_NPROC exempts). */
  readonly cgroups?: boolean
  /** The workspace scan (default: the process's shared one, kept fresh by inotify). */
  readonly scan?: WatchedScan.WatchedScan | undefined
  /** The minicode program (dist/bin.js) a guardian runs when this process dies mid-call (`Recovery`); none when absent. */
  readonly recoverWith?: string | undefined
  /** A one-shot process's workspace: the probe's success is kept for the boot in its state place (`BwrapProbe`). */
  readonly probeRecord?: string | undefined
}

/** The first executable `name` on PATH (absolute entries), then in the system folders. */
export const findOnPath = (name: string): string | undefined => {
  const dirs = [...(process.env["PATH"] ?? "").split(":"), "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
  for (const dir of dirs) {
    if (dir === "" || !dir.startsWith("/")) continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

/** Folders a server command needs outside the workspace: its program's, and the node_modules its files live in. */
export const commandDirs = (command: ReadonlyArray<string>, workspace: string): ReadonlyArray<string> => {
  const [program, ...args] = command
  const candidates = [
    ...(program === undefined ? [] : [program.includes("/") ? program : findOnPath(program)]),
    ...args.filter((a) => a.startsWith("/"))
  ]
  const dirs = new Set<string>()
  for (const candidate of candidates) {
    if (candidate === undefined) continue
    let real: string
    try {
      real = fs.realpathSync(candidate)
    } catch {
      continue
    }
    if (real === workspace || real.startsWith(workspace + "/")) continue
    const modules = real.lastIndexOf("/node_modules/")
    dirs.add(modules >= 0 ? real.slice(0, modules + "/node_modules".length) : fs.statSync(real).isDirectory() ? real : path.dirname(real))
  }
  return [...dirs]
}

/** The command with its program (when it names a path outside the workspace) replaced by its real path. */
const realProgram = (command: ReadonlyArray<string>, workspace: string): ReadonlyArray<string> => {
  const [program, ...args] = command
  if (program === undefined || !program.includes("/")) return command
  try {
    const real = fs.realpathSync(program)
    return real === workspace || real.startsWith(workspace + "/") ? command : [real, ...args]
  } catch {
    return command
  }
}

const lstat = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p)
  } catch {
    return undefined
  }
}

const realDir = (p: string): string | undefined => {
  try {
    const real = fs.realpathSync(p)
    return fs.statSync(real).isDirectory() ? real : undefined
  } catch {
    return undefined
  }
}

/**
 * The folders holding object content in these git folders, resolved (a symlinked `objects` is masked where it
 * really is), with the alternates they borrow from.
 */
export const objectFoldersOf = (gitDirs: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const dir of gitDirs) {
    for (const name of Profile.objectFolders) {
      const real = realDir(path.join(dir, name))
      if (real !== undefined) out.add(real)
    }
    let alternates = ""
    try {
      alternates = fs.readFileSync(path.join(dir, "objects", "info", "alternates"), "utf8")
    } catch {
      // none
    }
    for (const line of alternates.split("\n")) {
      const t = line.trim()
      if (t === "" || t.startsWith("#")) continue
      const real = realDir(path.resolve(path.join(dir, "objects"), t))
      if (real !== undefined) out.add(real)
    }
  }
  return [...out]
}

/** The host folders the profile binds (the system folders that exist), and which are merged-/usr symlinks. */
const systemEntries = (): ReadonlyArray<Profile.SystemEntry> => {
  const system: Array<Profile.SystemEntry> = []
  for (const p of Profile.systemCandidates) {
    const st = lstat(p)
    if (st === undefined) continue
    if (st.isSymbolicLink()) system.push({ path: p, kind: "symlink", target: fs.readlinkSync(p) })
    else if (st.isDirectory()) system.push({ path: p, kind: "directory" })
  }
  return system
}

/**
 * Where the sandbox shows host secrets: the secret places inside the system folders it binds (`/etc`, `/opt`,
 * `/usr/local`), real folders (a symlinked `/usr/local` leads where the sandbox binds nothing).
 */
const privateRoots = (system: ReadonlyArray<Profile.SystemEntry>) =>
  HostSecrets.walkRoots(system.filter((e) => e.kind === "directory").map((e) => e.path)).filter((r) => lstat(r)?.isDirectory() === true)

/** Those of `paths` that are still there as `kind`: bwrap cannot make a mount point in a read-only folder. */
const existing = (kind: "file" | "directory", paths: ReadonlyArray<string>) =>
  [...new Set(paths)].filter((p) => (kind === "file" ? lstat(p)?.isFile() : lstat(p)?.isDirectory()) === true)

/**
 * Walks for host files private to their owner (HostWalk.ts) on the process's first idle moment, so the first
 * sandbox finds the walk done: for a long-lived front end (`mcp serve`) to call as it starts. A one-shot call walks
 * when it first makes a sandbox, and never otherwise.
 */
export const prewarm = Effect.sync(() => void setTimeout(() => hostPrivate(hostFacts()), 0).unref())

/** The host facts the profile needs: which system folders exist (and which are merged-/usr symlinks), prlimit. */
export const hostFacts = (): Profile.HostFacts => {
  const prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => lstat(p) !== undefined)
  return { system: systemEntries(), secretFiles: [], secretDirs: [], prlimit }
}

/**
 * The host files and folders to mask: the fixed credential files, and every entry of the secret places the sandbox
 * shows that other users may not read. Was a hole: minicode running as root let sandboxed bash read
 * `/etc/mysql/debian.cnf`, then a root-only key under `/opt`; the sandbox's root keeps the owner's rights with
 * every capability dropped. Walked when the first sandbox is made (not by the probe), once per process.
 */
const hostPrivate = (host: Profile.HostFacts): HostSecrets.Entries =>
  HostSecrets.merge([{ files: Profile.systemSecretFiles, dirs: Profile.systemSecretDirs, truncated: false }, HostWalk.entriesOf(privateRoots(host.system))])

// ---------------------------------------------------------------------------------------------------------------
// pids cgroup

const tryMkdir = (dir: string): boolean => {
  try {
    fs.mkdirSync(dir)
    return true
  } catch {
    return false
  }
}

const tryRmdir = (dir: string): boolean => {
  try {
    fs.rmdirSync(dir)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the call cgroups of minicode processes that are gone (`minicode-<pid>-<id>` with no such pid): a process
 * killed, or one that exited while its background removal still waited, left them behind for good. A pid in use
 * again keeps its folders (it may be another minicode's). Their leftover tasks, if any, were a dead call's: killed.
 */
export const sweepStaleCgroups = (base: string): number => {
  let removed = 0
  let names: Array<string>
  try {
    names = fs.readdirSync(base)
  } catch {
    return 0
  }
  for (const name of names) {
    const m = /^minicode-(\d+)-[0-9a-f]+$/.exec(name)
    if (m === null || alive(Number(m[1]))) continue
    const dir = path.join(base, name)
    killAll(dir)
    if (tryRmdir(dir)) removed++
  }
  return removed
}

/** A folder where this process may create child cgroups that have `pids.max`, or undefined. */
export const pidsCgroupBase = (): string | undefined => {
  const candidates: Array<string> = ["/sys/fs/cgroup/pids"]
  try {
    const own = fs.readFileSync("/proc/self/cgroup", "utf8").split("\n").find((l) => l.startsWith("0::"))
    if (own !== undefined && fs.readFileSync("/sys/fs/cgroup/cgroup.subtree_control", "utf8").includes("pids")) {
      candidates.push(path.join("/sys/fs/cgroup", own.slice(3)))
    }
  } catch {
    // no cgroup v2
  }
  for (const base of candidates) {
    const probe = path.join(base, `minicode-probe-${process.pid}`)
    if (!tryMkdir(probe)) continue
    const usable = lstat(path.join(probe, "pids.max")) !== undefined
    tryRmdir(probe)
    if (usable) {
      sweepStaleCgroups(base)
      return base
    }
  }
  return undefined
}

const killAll = (dir: string) => {
  try {
    for (const pid of fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n")) {
      if (pid.trim() === "") continue
      try {
        process.kill(Number(pid), "SIGKILL")
      } catch {
        // gone
      }
    }
  } catch {
    // gone
  }
}

/** A fresh pids cgroup for one call; the finalizer kills what is left in it and removes it. */
const pidsCgroup = (base: string, max: number, id: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const dir = path.join(base, `minicode-${process.pid}-${id}`)
        fs.mkdirSync(dir)
        fs.writeFileSync(path.join(dir, "pids.max"), String(max))
        return dir
      },
      catch: (cause) => new SandboxError({ reason: `cannot create a pids cgroup: ${String(cause)}` })
    }),
    (dir) =>
      Effect.gen(function* () {
        killAll(dir)
        if (tryRmdir(dir)) return
        // Exiting tasks can hold the cgroup for a moment: remove it in the background, not on the caller's time.
        yield* Effect.forkDaemon(
          Effect.gen(function* () {
            for (let i = 0; i < 100; i++) {
              yield* Effect.sleep("20 millis")
              killAll(dir)
              if (tryRmdir(dir)) return
            }
          })
        )
      })
  )

// ---------------------------------------------------------------------------------------------------------------
// Findings: the scan's hits, git's config files replaced by sanitized copies in a private folder outside the workspace

/**
 * A private (0700) folder outside the workspace for the sanitized copies, one per process (removed at exit). Each
 * copy is named by the hash of its content and never changed (mode 0444), so a copy made for one call is reused by
 * the next while git's config is unchanged, and a changed config gets a new copy.
 */
let copies: string | undefined
const copiesDir = (workspace: string): string => {
  const inside = (d: string) => d === workspace || d.startsWith(workspace + "/")
  if (copies !== undefined && !inside(copies) && fs.existsSync(copies)) return copies
  const base = [os.tmpdir(), "/tmp", "/var/tmp"].find((d) => path.isAbsolute(d) && !inside(d)) ?? os.tmpdir()
  const dir = fs.mkdtempSync(path.join(base, "minicode-gitconfig-"))
  if (inside(dir)) throw new Error(`${dir} is inside the workspace`)
  if (copies === undefined) process.once("exit", () => copies !== undefined && fs.rmSync(copies, { recursive: true, force: true }))
  copies = dir
  return dir
}

const sanitizedCopy = (workspace: string, file: string): string =>
  // An unreadable or vanished config is shown empty.
  copyOf(workspace, SanitizedConfig.sanitize(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""))

const copyOf = (workspace: string, text: string): string => {
  const source = path.join(copiesDir(workspace), `config-${createHash("sha256").update(text).digest("hex").slice(0, 32)}`)
  if (!fs.existsSync(source)) {
    const tmp = `${source}.${randomBytes(4).toString("hex")}`
    fs.writeFileSync(tmp, text, { mode: 0o444 })
    fs.renameSync(tmp, source)
  }
  return source
}

/** The editor controls the scan found (`control` hits), at any depth. */
const controlsOf = (hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> => hits.filter((h) => h.verdict === "control").map((h) => h.path)

/** The profile's findings from the scan's hits: each git config file shown as a sanitized, read-only copy. */
export const findingsOf = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>) =>
  Effect.try({
    try: () =>
      // A `.git` symlink is only looked after (GitControl): a mount on it would land on whatever it names.
      // A protected symlink likewise: its target is masked (a hit of its own, ScanAliases).
      // An editor control is shown read-only from a copy by `wrap` (writable calls only).
      hits.filter((h) => h.verdict !== "link" && h.verdict !== "secret-link" && h.verdict !== "control").map((h): Profile.Finding =>
        h.verdict === "pin" || h.verdict === "hold"
          ? { path: h.path, kind: h.kind, treatment: "pin" }
          : h.verdict === "mask"
            ? { path: h.path, kind: h.kind, treatment: "mask" }
            : { path: h.path, kind: h.kind, treatment: "read-only", source: sanitizedCopy(workspace, h.path) }
      ),
    catch: (cause) => new SandboxError({ reason: `cannot write the sanitized git config: ${String(cause)}` })
  })

/** Files a call wrote while a mask was broken (`Exposed`), masked like the secret they may hold. */
const exposedFindings = (workspace: string): ReadonlyArray<Profile.Finding> =>
  [...Exposed.paths(workspace)].flatMap((p): Array<Profile.Finding> => {
    const st = lstat(p)
    return st?.isFile() === true ? [{ path: p, kind: "file", treatment: "mask" }] : st?.isDirectory() === true ? [{ path: p, kind: "directory", treatment: "mask" }] : []
  })

/** A file's content, read without following a symlink on the way (`Beneath.beneath`); empty when it cannot be read so. */
const contentOf = (file: string): string => {
  try {
    const fd = Beneath.beneath(file, (f) => fs.openSync(f, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW))
    try {
      return fs.readFileSync(fd, "utf8")
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return ""
  }
}

/**
 * The git control files a writable call may not change while it runs (`GitControl.liveControls`, and the `.git`
 * files among `gitDirs`, which name a git folder), shown read-only: each as a private copy of its content
 * (sanitized for a `config.worktree`), never the file itself, so a symlink put there by a concurrent call never has
 * a host file bound into the workspace; `hooks` folders masked. Was a hole (issue 19): bash rewrote a submodule's
 * `.git` file to `gitdir: ../evil`; until the call ended the user's `git status` in the workspace ran the planted
 * repository's `core.fsmonitor` (git looks into a submodule's checkout).
 */
export const liveFindings = (workspace: string, gitDirs: ReadonlyArray<string>) =>
  Effect.try({
    try: (): ReadonlyArray<Profile.Finding> => {
      const live = GitControl.liveControls(workspace, gitDirs)
      // A symlink cannot be pinned: refused rather than left for the call to retarget while the user's git follows it.
      if (live.links.length > 0) {
        const shown = live.links.map((l) => path.relative(workspace, l)).join(", ")
        throw new Error(
          `what git's configuration names (a hooks folder, an included config or a program) leads through the symlink ${shown} in the workspace, which a writable call could point elsewhere while your own git follows it; point the configuration at the real path`
        )
      }
      const dotGitFiles = gitDirs.filter((g) => path.basename(g) === ".git" && lstat(g)?.isFile() === true)
      return [
        ...dotGitFiles.map((f): Profile.Finding => ({ path: f, kind: "file", treatment: "read-only", source: copyOf(workspace, contentOf(f)) })),
        ...live.files.map((f): Profile.Finding => {
          const text = contentOf(f)
          return { path: f, kind: "file", treatment: "read-only", source: copyOf(workspace, path.basename(f) === "commondir" ? text : SanitizedConfig.sanitize(text)) }
        }),
        ...live.hooks.map((h): Profile.Finding => ({ path: h, kind: "directory", treatment: "mask" })),
        // A program the repository's config names by a path: shown as a copy of itself (not sanitized: a script).
        ...live.programs.map((f): Profile.Finding => ({ path: f, kind: "file", treatment: "read-only", source: copyOf(workspace, contentOf(f)) }))
      ]
    },
    catch: (cause) => new SandboxError({ reason: `cannot show the git control files read-only: ${cause instanceof Error ? cause.message : String(cause)}` })
  })

export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const found = yield* BwrapProbe.probeOnce(options.bwrap ?? findOnPath("bwrap"), options.probeRecord)
    const host = hostFacts()
    // RLIMIT_NPROC (per user namespace) holds for everyone but host root, whom the kernel exempts: a pids cgroup
    // (a few ms per call) only where it is needed, unless asked explicitly.
    const wantCgroup = options.cgroups ?? process.getuid?.() === 0
    const cgroupBase = found.status._tag === "Available" && wantCgroup ? pidsCgroupBase() : undefined
    const status: SandboxStatus =
      found.status._tag === "Available"
        ? {
            ...found.status,
            limits: {
              prlimit: host.prlimit !== undefined,
              pidsCgroup: cgroupBase !== undefined,
              processLimit: cgroupBase !== undefined || (host.prlimit !== undefined && process.getuid?.() !== 0)
            }
          }
        : found.status
    const hostHome = options.hostHome ?? process.env["HOME"]
    // The scan, its cache and its watchers are the process's, shared by every sandbox; validated on every wrap.
    const scanner = options.scan ?? WatchedScan.shared
    // One guardian per workspace for this process's writable calls (`Recovery.guardian`), kept while it lives.
    const guardians = new Map<string, ChildProcess | undefined>()
    const wrap = (request: WrapRequest): Effect.Effect<Wrapped, SandboxError, Scope.Scope> =>
      Effect.gen(function* () {
        if (status._tag === "Unavailable") return yield* new SandboxError({ reason: status.reason })
        const workspace = request.workspace
        if (!path.isAbsolute(request.cwd) || !(request.cwd === workspace || request.cwd.startsWith(workspace + "/"))) {
          return yield* new SandboxError({ reason: `${request.cwd} is outside the workspace, which is all the sandbox shows` })
        }
        const gitStat = lstat(path.join(workspace, ".git"))
        const hits = yield* scanner.scan(workspace, request.watchWorkspace ?? true, request.scanSince)
        const gitDirs = hits.filter((h) => h.verdict === "pin" || h.verdict === "link").map((h) => h.path)
        // The editor's and agent's command files (.claude/settings.json…), at the top and below it, through symlinked
        // folders too: recorded for every overlapping call (EditorControlsOnDisk), the present ones shown read-only.
        let editorControls: ReadonlyArray<string> = []
        let ownCall: string | undefined
        // Set once the profile is known; asked by the shell before output goes out, and here at the end.
        let guard: MaskGuard.MaskGuard = MaskGuard.none
        if (request.writable && request.staged !== true) {
          // Started once the command is under way (a spawn is a fork of this process: 1-20 ms, off the call's path).
          const program = options.recoverWith
          if (program !== undefined && !guardians.has(workspace)) guardians.set(workspace, void setImmediate(() => guardians.set(workspace, Recovery.guardian(program, workspace))))
          // What a writable sandbox plants in a git folder's control files or an editor's is undone when the call ends.
          // Scanned again at the end: a repository the call made (`git init sub`) holds files the user's git would run,
          // and an editor control made below the top (`app/.vscode/tasks.json`) is found the same way.
          const entered = yield* Effect.acquireRelease(
            Effect.try({
              try: () => {
                const editor = EditorControlsOnDisk.enter(workspace, controlsOf(hits))
                try {
                  return { editor, git: GitControl.enter(workspace, gitDirs) }
                } catch (cause) {
                  EditorControlsOnDisk.leave(workspace, editor.id)
                  throw cause
                }
              },
              catch: (cause) => new SandboxError({ reason: `cannot record the git and editor control files: ${String(cause)}` })
            }),
            // Whatever the scan meets (it failed on a path past PATH_MAX the call made: red team), the git folders
            // and editor controls known at the start are looked after.
            ({ editor, git }) =>
              Effect.flatMap(Effect.exit(Effect.suspend(() => scanner.scan(workspace))), (now) => {
                const after = Exit.isSuccess(now) ? now.value : []
                const pins = after.filter((h) => h.verdict === "pin" || h.verdict === "link").map((h) => h.path)
                return Effect.zipRight(
                  // The objects the call wrote are content it knew (SecretObjects.noteMade), noted while it still counts as
                  // running; not when a mask broke during it (then it may have stored what it read).
                  Effect.ignore(
                    Effect.try(() => {
                      const exposed = guard.broken() !== undefined
                      SecretObjects.noteMade(workspace, exposed)
                      // What it wrote while exposed is protected from now on (Exposed).
                      if (exposed) Exposed.record(workspace, guard.startedMs)
                      EditorControlsOnDisk.leave(workspace, editor.id, controlsOf(after))
                    })
                  ),
                  Effect.ignore(Effect.try(() => GitControl.leave(workspace, git, [...new Set([...gitDirs, ...pins])])))
                )
              })
          )
          editorControls = entered.editor.files
          ownCall = entered.git
        }
        const live = request.writable && request.staged !== true ? yield* liveFindings(workspace, gitDirs) : []
        const scanned = yield* findingsOf(workspace, hits)
        const findings = [
          ...editorControls.map((f): Profile.Finding => ({ path: f, kind: "file", treatment: "read-only", source: copyOf(workspace, contentOf(f)) })),
          // Before the scan's: a `.git` file the scan pins (writable) is shown read-only instead.
          ...live,
          ...scanned,
          ...exposedFindings(workspace),
          ...Profile.fixedFindings(workspace, {
            writable: request.writable,
            stateExists: lstat(path.join(workspace, ".minicode")) !== undefined,
            gitDirectory: gitStat?.isDirectory() === true,
            hooksExist: lstat(path.join(workspace, ".git", "hooks"))?.isDirectory() === true
          }),
          ...Profile.objectMasks(workspace, objectFoldersOf(request.hideGitObjects ?? [])),
          // Objects that appear while another writable call runs are that call's (or the host's): `during`.
          ...(request.gitTool === true ? [] : Profile.objectMasks(workspace, yield* SecretObjects.toHideEffect(workspace, hits, GitControl.othersRunning(workspace, ownCall)))),
          ...(request.gitTool === true ? [] : SecretObjects.secretMessages(workspace, hits).map((f): Profile.Finding => ({ path: f, kind: "file", treatment: "mask" }))),
          // Remotes by their URLs (credentials) in legacy `branches/` and `remotes/`, as a config's are sanitized.
          ...SecretObjects.remoteFolders(workspace, hits).map((f): Profile.Finding => ({ path: f, kind: "directory", treatment: "mask" }))
        ]
        const home = Profile.chooseHome(workspace, hostHome)
        const extraReadOnly = [
          ...(options.extraReadOnly ?? []),
          ...(request.readOnly ?? []),
          ...(request.bindCommand === true ? commandDirs(request.command, workspace) : [])
        ]
        // `hidden`: minicode's state folders (outside the workspace, StateHome) are never shown, not even read-only.
        const profile: Profile.Profile = { workspace, writable: request.writable, cwd: request.cwd, home, findings, network: request.network, limits: request.limits ?? {}, extraReadOnly, hidden: StateHome.hidden(workspace) }
        // Host files private to their owner, around what this sandbox shows whatever it holds.
        const masks = HostWalk.masksAround(hostPrivate(host), [workspace, home, ...extraReadOnly])
        const facts = { ...host, secretFiles: existing("file", masks.files), secretDirs: existing("directory", masks.dirs) }
        // A bound command is run by its real path: its symlink (node_modules/.bin/x, /usr/bin/x -> ../lib/...) may
        // live in a folder the profile does not bind; the real file's node_modules folder is bound above.
        const command = request.bindCommand === true ? realProgram(request.command, workspace) : request.command
        const argv = [found.bwrap, ...Profile.bwrapArgs(facts, profile, command)]
        const env = Profile.environment(profile, request.env)
        const processes = request.limits?.processes
        // Asked by the shell before it lets output out: the host may replace a file the sandbox binds over mid-call
        // (MaskGuard). Masks, and the git controls' read-only copies: the user's own `git config`/`git checkout -b`
        // renames `.git/config` into place, which detached the sanitized copy, and the call read the credentials and
        // wrote `core.fsmonitor` there, which the user's `git status` ran (red team 9). A git control's bind broken
        // stops the command at once (`whenBroken`); the call's end puts the control back (GitControl). An editor
        // control's copy holds no secret, and its end puts it back (EditorControlsOnDisk).
        const stopping = new Set([...live, ...scanned.filter((f) => f.treatment === "read-only")].map((f) => f.path))
        const guarded = findings.filter((f) => f.path.startsWith(`${workspace}/`) && (f.treatment === "mask" || stopping.has(f.path))).map((f) => f.path)
        const made = MaskGuard.make(workspace, [...new Set(guarded)], stopping)
        guard = made
        yield* Effect.addFinalizer(() => Effect.sync(() => made.stop()))
        const mountPoints = findings.filter((f) => f.path.startsWith(`${workspace}/`)).map((f) => ({ path: f.path, kind: f.kind, treatment: f.treatment }))
        const told = { broken: made.broken, whenBroken: made.whenBroken, mountPoints }
        if (cgroupBase === undefined || processes === undefined) return { argv, env, ...told }
        const dir = yield* pidsCgroup(cgroupBase, processes, randomBytes(6).toString("hex"))
        // Enter the cgroup before bwrap starts, so nothing it forks is outside.
        return { argv: ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', path.join(dir, "cgroup.procs"), ...argv], env, ...told }
      })
    return Sandbox.of({ status, wrap })
  })

export const layer = (options: Options = {}) => Layer.effect(Sandbox, make(options))
