/**
 * bash on a copy-on-write view of the workspace: kernel overlayfs mounted in an unprivileged user namespace, with
 * the live workspace as its lower layer, a mask layer above it (protected paths hidden by name) and the upper layer
 * in a staging folder outside the workspace (Staging.ts). bwrap then runs as for any sandboxed call, binding the
 * view where the workspace is. Nothing the command writes reaches the tree: the merge (StagedMerge.ts) applies what
 * the rules allow.
 *
 * Found on this machine (Debian 12, kernel 6.18, bubblewrap 0.8.0, ext4), as an unprivileged user (`nobody` via
 * `setpriv --reuid=65534 … unshare -Urm`) and as root:
 * - `unshare -Urm` then `mount -t overlay overlay -o lowerdir=MASK:WS,upperdir=U,workdir=W,userxattr M` works;
 *   writes land in U; an empty file `MASK/.env` shows `.env` empty whatever the host does to `WS/.env`.
 * - Lower files owned by a uid the namespace does not map cannot be copied up (EOVERFLOW, "Value too large for
 *   defined data type"): a user's own workspace is fine, root's files seen from a non-root user's namespace are not.
 * - In U, a removed lower entry is a whiteout: a char device 0/0 (no xattr). A folder removed and made again is a new
 *   folder with `user.overlay.opaque=y`; a copied-up folder carries `user.overlay.origin`/`impure`. Renaming a lower
 *   folder fails with EXDEV (no redirect_dir with userxattr): `mv` copies, so a rename is a removal and a creation.
 *   Node cannot read xattrs, so removals are found by listing, not by whiteouts: after the command, inside the
 *   namespace, each folder of U that the workspace also has is listed through the view (`listing`); what the
 *   workspace holds there and the view does not was removed (whiteout or opaque folder alike).
 * - bwrap 0.8 (no `--overlay`) runs inside that namespace and `--bind WS WS` shows the view: so the overlay is
 *   mounted on the workspace's own path in a private mount namespace and bwrap's argv is unchanged.
 * - bubblewrap 0.9+ (`--overlay-src`) is not installed here; that path is not built yet.
 * - `setpriv --pdeathsig KILL` after `unshare` (a new user namespace clears the parent-death signal) makes the
 *   namespace's shell die with minicode, and bwrap's `--die-with-parent` takes the command with it.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"

export type Status = { readonly _tag: "Available"; readonly unshare: string; readonly setpriv: string } | { readonly _tag: "Unavailable"; readonly reason: string }

const system = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
const find = (name: string): string | undefined =>
  system.map((d) => path.join(d, name)).find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

/**
 * The shell run inside the namespace: `$1` the workspace, `$2` the call's staging folder, the rest the sandbox's
 * argv. Mounts the view on the workspace's path, runs the command, then writes `listing`: for each folder of the
 * upper layer the workspace also has, `/<folder>\0` and the names the view shows there, each `\0`-ended.
 */
export const script = [
  "P=/usr/sbin:/usr/bin:/sbin:/bin",
  'ws=$1; st=$2; shift 2',
  'PATH=$P mount --bind "$ws" "$st/lower" || exit 125',
  'cd "$st" || exit 125',
  'PATH=$P mount -t overlay overlay -o lowerdir=mask:lower,upperdir=upper,workdir=work,userxattr "$ws" || exit 125',
  "cd /",
  '"$@"',
  "rc=$?",
  'cd "$st/upper" || exit 125',
  `PATH=$P find . -type d -exec sh -c 'l=$1; w=$2; shift 2; for d; do [ -d "$l/$d" ] || continue; printf "/%s\\0" "$d"; find "$w/$d" -mindepth 1 -maxdepth 1 -printf "%f\\0"; done' sh "$st/lower" "$ws" {} + > "$st/listing.tmp" && PATH=$P mv "$st/listing.tmp" "$st/listing"`,
  "exit $rc"
].join("\n")

/** The argv that runs `argv` (a sandbox's, bwrap first or after a cgroup shell) on the view. */
export const wrap = (status: Extract<Status, { _tag: "Available" }>, argv: ReadonlyArray<string>, workspace: string, stage: string): ReadonlyArray<string> => {
  const at = argv.findIndex((a) => path.basename(a) === "bwrap")
  const prefix = [status.unshare, "--user", "--map-root-user", "--mount", status.setpriv, "--pdeathsig", "KILL", "/bin/sh", "-c", script, "minicode-staged", workspace, stage]
  return at < 0 ? [...prefix, ...argv] : [...argv.slice(0, at), ...prefix, ...argv.slice(at)]
}

const run = (file: string, args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number; readonly stderr: string }>((resume) => {
    const child = execFile(file, [...args], { timeout: 10_000 }, (error, _stdout, stderr) =>
      resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr: String(stderr || (error?.message ?? "")) }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Whether an overlay can be mounted in a user namespace here, with its upper layer under `base` (minicode's state). */
export const probe = (base: string): Effect.Effect<Status> =>
  Effect.gen(function* () {
    const unshare = find("unshare")
    const setpriv = find("setpriv")
    if (unshare === undefined || setpriv === undefined) return { _tag: "Unavailable", reason: "unshare/setpriv (util-linux) not found" } as const
    const dir = yield* Effect.try(() => {
      fs.mkdirSync(base, { recursive: true, mode: 0o700 })
      // Probes of processes killed meanwhile are left over: removed.
      for (const name of fs.readdirSync(base)) {
        const m = /^probe-(\d+)-/.exec(name)
        if (m !== null && !alive(Number(m[1]))) remove(path.join(base, name))
      }
      const d = fs.mkdtempSync(path.join(base, `probe-${process.pid}-`))
      for (const n of ["lower", "upper", "work", "view"]) fs.mkdirSync(path.join(d, n))
      return d
    }).pipe(Effect.orElseSucceed(() => undefined))
    if (dir === undefined) return { _tag: "Unavailable", reason: `cannot make a staging folder under ${base}` } as const
    const trial = yield* run(unshare, ["--user", "--map-root-user", "--mount", setpriv, "--pdeathsig", "KILL", "/bin/sh", "-c",
      'cd "$1" && PATH=/usr/sbin:/usr/bin:/sbin:/bin mount -t overlay overlay -o lowerdir=lower,upperdir=upper,workdir=work,userxattr view && echo x > view/f', "probe", dir])
    const wrote = fs.existsSync(path.join(dir, "upper", "f"))
    yield* Effect.sync(() => remove(dir))
    return wrote
      ? ({ _tag: "Available", unshare, setpriv } as const)
      : ({ _tag: "Unavailable", reason: `overlayfs in an unprivileged user namespace failed: ${trial.stderr.trim() || `exit ${trial.code}`}` } as const)
  })

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Removes a staging folder: overlay's work folder is left mode 000, so modes are opened up first. */
export const remove = (dir: string): void => {
  try {
    const work = path.join(dir, "work", "work")
    if (fs.existsSync(work)) fs.chmodSync(work, 0o700)
  } catch {
    // gone
  }
  fs.rmSync(dir, { recursive: true, force: true })
}
