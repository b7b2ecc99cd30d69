import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as Jail from "../../../src/domain/jail/Jail.js"
import * as SP from "../../../src/domain/sandbox/SandboxProfile.js"

const root = "/work/ws"
const host: SP.HostFacts = {
  system: [
    { path: "/usr", kind: "directory" },
    { path: "/bin", kind: "symlink", target: "usr/bin" },
    { path: "/etc", kind: "directory" }
  ],
  secretFiles: ["/etc/shadow"],
  secretDirs: ["/etc/ssl/private"],
  prlimit: "/usr/bin/prlimit"
}
const profile = (over: Partial<SP.Profile> = {}): SP.Profile => ({
  workspace: root,
  writable: true,
  cwd: root,
  home: "/home/me",
  findings: [],
  network: false,
  limits: {},
  ...over
})

/** The argv as (flag, operands) pairs, for order checks. */
const indexOf = (args: ReadonlyArray<string>, ...seq: ReadonlyArray<string>) =>
  args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s))

describe("SandboxProfile.classify", () => {
  it("masks what the jail calls secret or state, sanitizes git's config files, masks hooks, pins every .git", () => {
    assert.strictEqual(SP.classify(root, `${root}/.env`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/api/.env.production`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.env.example`, "file"), "keep")
    assert.strictEqual(SP.classify(root, `${root}/deploy/.ssh`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/certs/server.key`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.minicode`, "directory"), "mask")
    // Issue 19: `.git/config` and `.git/hooks` were shown read-only; the jail refuses both, so the sandbox now
    // shows config files as sanitized copies, masks hooks, and pins `.git` (a mount point: it cannot be moved).
    assert.strictEqual(SP.classify(root, `${root}/.git`, "directory"), "pin")
    // A `.git` file (`gitdir: …`) too: it cannot be replaced, and GitControl looks after the folder it names.
    assert.strictEqual(SP.classify(root, `${root}/.git`, "file"), "pin")
    assert.strictEqual(SP.classify(root, `${root}/.git/config`, "file"), "sanitize")
    assert.strictEqual(SP.classify(root, `${root}/.git/config.worktree`, "file"), "sanitize")
    assert.strictEqual(SP.classify(root, `${root}/.git/hooks`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.git/objects`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/hooks`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/config`, "file"), "sanitize")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/objects`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/vendor/.git/hooks`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/vendor/.git`, "directory"), "pin")
    assert.strictEqual(SP.classify(root, `${root}/src/config`, "file"), "keep")
    assert.strictEqual(SP.classify(root, `${root}/.env`, "other"), "skip")
    // Ignored and vendored folders are scanned like any other (issue 19).
    for (const d of ["node_modules", "dist", "build", "target", ".venv", ".cache", ".next"]) {
      assert.strictEqual(SP.classify(root, `${root}/${d}`, "directory"), "descend", d)
    }
    assert.strictEqual(SP.classify(root, `${root}/src`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/src/index.ts`, "file"), "keep")
  })

  const segment = FastCheck.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/)
  const secretName = FastCheck.constantFrom(".env", ".env.local", "id_rsa", ".npmrc", "credentials.json", "tls.pem", "secrets.yaml", ".netrc")
  const anyDir = FastCheck.oneof(segment, FastCheck.constantFrom("node_modules", "dist", "build", "target", "venv", ".cache", "vendor"))
  it.prop("every file the jail protects by name is masked, at any depth, in ignored folders too", { dirs: FastCheck.array(anyDir, { maxLength: 12 }), name: secretName }, ({ dirs, name }) => {
    const abs = [root, ...dirs, name].join("/")
    assert.isDefined(Jail.sensitiveReason(abs, root))
    assert.strictEqual(SP.classify(root, abs, "file"), "mask")
    // and no folder on the way is skipped
    for (let i = 1; i <= dirs.length; i++) assert.strictEqual(SP.classify(root, [root, ...dirs.slice(0, i)].join("/"), "directory"), "descend")
  })

  it.prop("the scan's verdict agrees with the jail on every name: refused means not shown as it is", { dirs: FastCheck.array(anyDir, { maxLength: 6 }), name: FastCheck.oneof(segment, secretName, FastCheck.constantFrom("config", "hooks", ".git")), kind: FastCheck.constantFrom("file" as const, "directory" as const) }, ({ dirs, name, kind }) => {
    const abs = [root, ...dirs, name].join("/")
    const verdict = SP.classify(root, abs, kind)
    // A folder is judged as a folder: one named like a secret file (`.env/`, issue 40) is looked inside and held.
    const refused = (kind === "directory" ? Jail.protectedFolder(abs, root) : Jail.protectedName(abs, root)) !== undefined
    assert.strictEqual(refused, verdict === "mask" || verdict === "sanitize", `${abs} ${kind}: ${verdict}`)
    const named = kind === "directory" && !refused && Jail.protectedName(abs, root) !== undefined
    assert.strictEqual(verdict === "hold", named, `${abs} ${kind}: ${verdict}`)
  })

  it.prop("a plain name is never masked", { dirs: FastCheck.array(segment, { maxLength: 4 }), name: segment }, ({ dirs, name }) => {
    const abs = [root, ...dirs, `${name}.ts`].join("/")
    assert.strictEqual(SP.classify(root, abs, "file"), "keep")
  })
})

describe("SandboxProfile.fixedFindings and normalise", () => {
  it("masks .minicode/ even when absent in a writable workspace, and .git/hooks/ when a repository has none", () => {
    const f = SP.fixedFindings(root, { writable: true, stateExists: false, gitDirectory: true, hooksExist: false })
    assert.deepStrictEqual(f, [
      { path: `${root}/.minicode`, kind: "directory", treatment: "mask" },
      { path: `${root}/.git/hooks`, kind: "directory", treatment: "mask" }
    ])
    const ro = SP.fixedFindings(root, { writable: false, stateExists: false, gitDirectory: true, hooksExist: false })
    assert.deepStrictEqual(ro, [])
    const present = SP.fixedFindings(root, { writable: false, stateExists: true, gitDirectory: true, hooksExist: true })
    // Issue 19: existing hooks are masked too (was "read-only"): the jail refuses to read them.
    assert.deepStrictEqual(present.map((x) => x.treatment), ["mask", "mask"])
  })

  it("dedupes, orders parents first and drops what a masked folder already hides", () => {
    const out = SP.normalise([
      { path: `${root}/a/.ssh/id_rsa`, kind: "file", treatment: "mask" },
      { path: `${root}/a/.ssh`, kind: "directory", treatment: "mask" },
      { path: `${root}/.env`, kind: "file", treatment: "mask" },
      { path: `${root}/.env`, kind: "file", treatment: "mask" }
    ])
    assert.deepStrictEqual(out.map((f) => f.path), [`${root}/.env`, `${root}/a/.ssh`])
  })
})

describe("SandboxProfile.chooseHome", () => {
  it("empties the user's home in place, unless the workspace is it or holds it", () => {
    assert.strictEqual(SP.chooseHome(root, "/home/me"), "/home/me")
    assert.strictEqual(SP.chooseHome("/home/me/project", "/home/me"), "/home/me")
    assert.strictEqual(SP.chooseHome("/home/me", "/home/me"), "/tmp/home")
    assert.strictEqual(SP.chooseHome("/home", "/home/me"), "/tmp/home")
    assert.strictEqual(SP.chooseHome(root, undefined), "/tmp/home")
  })
})

describe("SandboxProfile.bwrapArgs", () => {
  const findings: ReadonlyArray<SP.Finding> = [
    { path: `${root}/.env`, kind: "file", treatment: "mask" },
    { path: `${root}/.ssh`, kind: "directory", treatment: "mask" },
    { path: `${root}/.git/config`, kind: "file", treatment: "read-only" },
    { path: `${root}/.git/hooks`, kind: "directory", treatment: "read-only" },
    { path: `${root}/sub/.git/config`, kind: "file", treatment: "read-only", source: "/tmp/minicode-gitconfig-x/config-0" },
    { path: `${root}/sub/.git`, kind: "directory", treatment: "pin" }
  ]
  const args = SP.bwrapArgs(host, profile({ findings, limits: { cpuSeconds: 10, processes: 64, fileSizeBytes: 1024, memoryBytes: 2 ** 30 } }), ["bash", "-c", "true"])

  it("new namespaces, no network, no capabilities, dies with its parent", () => {
    for (const flag of ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent", "--new-session"]) {
      assert.include(args, flag)
    }
    assert.isAtLeast(indexOf(args, "--cap-drop", "ALL"), 0)
  })

  it("system read-only, host secrets and pid 1's environment masked, private /tmp and home", () => {
    assert.isAtLeast(indexOf(args, "--ro-bind", "/usr", "/usr"), 0)
    assert.isAtLeast(indexOf(args, "--symlink", "usr/bin", "/bin"), 0)
    assert.isAtLeast(indexOf(args, "--ro-bind", "/dev/null", "/etc/shadow"), 0)
    assert.isAtLeast(indexOf(args, "--tmpfs", "/etc/ssl/private", "--remount-ro", "/etc/ssl/private"), 0)
    assert.isAbove(indexOf(args, "--ro-bind", "/dev/null", "/etc/shadow"), indexOf(args, "--ro-bind", "/etc", "/etc"))
    assert.isAbove(indexOf(args, "--ro-bind", "/dev/null", "/proc/1/environ"), indexOf(args, "--proc", "/proc"))
    assert.isAtLeast(indexOf(args, "--tmpfs", "/tmp"), 0)
    assert.isAtLeast(indexOf(args, "--tmpfs", "/home/me"), 0)
    assert.notInclude(args, "/root")
  })

  it("the workspace read-write, then the masks and read-only paths over it", () => {
    const ws = indexOf(args, "--bind", root, root)
    assert.isAtLeast(ws, 0)
    const masks = [
      indexOf(args, "--ro-bind", "/dev/null", `${root}/.env`),
      indexOf(args, "--tmpfs", `${root}/.ssh`, "--remount-ro", `${root}/.ssh`),
      indexOf(args, "--ro-bind", `${root}/.git/config`, `${root}/.git/config`),
      indexOf(args, "--ro-bind", `${root}/.git/hooks`, `${root}/.git/hooks`)
    ]
    for (const m of masks) assert.isAbove(m, ws)
    assert.isAbove(indexOf(args, "--bind", root, root), indexOf(args, "--tmpfs", "/tmp"))
  })

  it("a pinned .git is bound onto itself before what is inside it; a sanitized copy is shown in place of the file", () => {
    const pin = indexOf(args, "--bind", `${root}/sub/.git`, `${root}/sub/.git`)
    const copy = indexOf(args, "--ro-bind", "/tmp/minicode-gitconfig-x/config-0", `${root}/sub/.git/config`)
    assert.isAbove(pin, indexOf(args, "--bind", root, root))
    assert.isAbove(copy, pin)
    const ro = SP.bwrapArgs(host, profile({ writable: false, findings }), ["true"])
    assert.isAtLeast(indexOf(ro, "--ro-bind", `${root}/sub/.git`, `${root}/sub/.git`), 0)
    assert.strictEqual(indexOf(ro, "--bind", `${root}/sub/.git`, `${root}/sub/.git`), -1)
  })

  it("every folder above a masked or replaced path is pinned, parents first, before the mask (a secret's folder cannot be moved)", () => {
    const deep = SP.bwrapArgs(host, profile({ findings: [{ path: `${root}/a/b/.env`, kind: "file", treatment: "mask" }, ...findings] }), ["true"])
    const a = indexOf(deep, "--bind", `${root}/a`, `${root}/a`)
    const b = indexOf(deep, "--bind", `${root}/a/b`, `${root}/a/b`)
    const mask = indexOf(deep, "--ro-bind", "/dev/null", `${root}/a/b/.env`)
    assert.isAbove(a, indexOf(deep, "--bind", root, root))
    assert.isAbove(b, a)
    assert.isAbove(mask, b)
    // The sanitized copy's folders too; the workspace itself is not bound twice, and a masked folder's insides are not pinned.
    assert.isAtLeast(indexOf(deep, "--bind", `${root}/sub`, `${root}/sub`), 0)
    assert.strictEqual(deep.filter((x, i) => x === "--bind" && deep[i + 1] === root).length, 1)
    assert.deepStrictEqual(
      SP.pinAncestors(root, [{ path: `${root}/.ssh/keys/id`, kind: "file", treatment: "mask" }, { path: `/elsewhere/x`, kind: "file", treatment: "mask" }]).map((f) => f.path),
      [`${root}/.ssh/keys/id`, "/elsewhere/x", `${root}/.ssh/keys`, `${root}/.ssh`]
    )
  })

  it("a bash script sets its limits with bash's ulimit on its first line, after the chdir; other commands run through prlimit", () => {
    const sep = args.indexOf("--")
    assert.deepStrictEqual(args.slice(sep - 2, sep), ["--chdir", root])
    assert.deepStrictEqual(args.slice(sep + 1), [
      "bash", "-c", `{ if shopt -oq posix; then ulimit -f 2; else ulimit -f 1; fi && ulimit -t 10 -u 64 -v ${2 ** 20} -c 0; } || exit 126; true`
    ])
    assert.deepStrictEqual(SP.inner(host, { processes: 3 }, ["/usr/bin/bash", "-c", "echo a\necho b", "name", "x"]), [
      "/usr/bin/bash", "-c", "{ ulimit -u 3 -c 0; } || exit 126; echo a\necho b", "name", "x"
    ])
    assert.deepStrictEqual(SP.inner(host, { processes: 3 }, ["node", "server.js"]), ["/usr/bin/prlimit", "--nproc=3", "--core=0", "--", "node", "server.js"])
    assert.deepStrictEqual(SP.inner(host, { processes: 3 }, ["bash", "script.sh"]), ["/usr/bin/prlimit", "--nproc=3", "--core=0", "--", "bash", "script.sh"])
    assert.isTrue(SP.limitsEnforced({ ...host, prlimit: undefined }, { processes: 1 }, ["bash", "-c", "true"]))
    assert.isFalse(SP.limitsEnforced({ ...host, prlimit: undefined }, { processes: 1 }))
    assert.deepStrictEqual(SP.inner({ ...host, prlimit: undefined }, {}, ["true"]), ["true"])
  })

  it("network on request only; read-only workspace for servers", () => {
    const net = SP.bwrapArgs(host, profile({ network: true }), ["true"])
    assert.notInclude(net, "--unshare-net")
    const ro = SP.bwrapArgs(host, profile({ writable: false }), ["true"])
    assert.isAtLeast(indexOf(ro, "--ro-bind", root, root), 0)
    assert.strictEqual(indexOf(ro, "--bind", root, root), -1)
  })

  it("never shows a secret or state path as an extra read-only path", () => {
    const a = SP.bwrapArgs(host, profile({ extraReadOnly: ["/home/me/.nvm", "/home/me/.ssh", "/home/me/.config/minicode"] }), ["true"])
    assert.isAtLeast(indexOf(a, "--ro-bind-try", "/home/me/.nvm", "/home/me/.nvm"), 0)
    assert.notInclude(a, "/home/me/.ssh")
    assert.notInclude(a, "/home/me/.config/minicode")
  })

  it("environment: private home and tmp, no runtime dir or agent socket", () => {
    const env = SP.environment(profile(), { HOME: "/root", TMPDIR: "/var/tmp", XDG_RUNTIME_DIR: "/run/user/0", SSH_AUTH_SOCK: "/x", PATH: "/usr/bin" })
    assert.deepStrictEqual(env, { HOME: "/home/me", TMPDIR: "/tmp", PATH: "/usr/bin", PWD: root })
  })

  it.effect("is deterministic", () => Effect.sync(() => assert.deepStrictEqual(SP.bwrapArgs(host, profile({ findings }), ["x"]), SP.bwrapArgs(host, profile({ findings }), ["x"]))))
})
