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
  it("masks what the jail calls secret or state, keeps .git/config and .git/hooks read-only", () => {
    assert.strictEqual(SP.classify(root, `${root}/.env`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/api/.env.production`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.env.example`, "file"), "keep")
    assert.strictEqual(SP.classify(root, `${root}/deploy/.ssh`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/certs/server.key`, "file"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.minicode`, "directory"), "mask")
    assert.strictEqual(SP.classify(root, `${root}/.git`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/config`, "file"), "read-only")
    assert.strictEqual(SP.classify(root, `${root}/.git/hooks`, "directory"), "read-only")
    assert.strictEqual(SP.classify(root, `${root}/.git/objects`, "directory"), "skip")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/hooks`, "directory"), "read-only")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/config`, "file"), "read-only")
    assert.strictEqual(SP.classify(root, `${root}/.git/modules/lib/objects`, "directory"), "skip")
    assert.strictEqual(SP.classify(root, `${root}/vendor/.git/hooks`, "directory"), "read-only")
    assert.strictEqual(SP.classify(root, `${root}/node_modules`, "directory"), "skip")
    assert.strictEqual(SP.classify(root, `${root}/src`, "directory"), "descend")
    assert.strictEqual(SP.classify(root, `${root}/src/index.ts`, "file"), "keep")
  })

  const segment = FastCheck.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/)
  const secretName = FastCheck.constantFrom(".env", ".env.local", "id_rsa", ".npmrc", "credentials.json", "tls.pem", "secrets.yaml", ".netrc")
  it.prop("every file the jail protects by name is masked, at any depth", { dirs: FastCheck.array(segment, { maxLength: 5 }), name: secretName }, ({ dirs, name }) => {
    const abs = [root, ...dirs, name].join("/")
    assert.isDefined(Jail.sensitiveReason(abs, root))
    const verdict = SP.classify(root, abs, "file")
    // inside an unscanned folder the scan never gets there; everywhere else it is masked
    assert.include(["mask", "skip"], verdict)
    if (dirs.every((d) => !["node_modules", "venv", "target", "dist", "build"].includes(d))) assert.strictEqual(verdict, "mask")
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
    assert.deepStrictEqual(present.map((x) => x.treatment), ["mask", "read-only"])
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
    { path: `${root}/.git/hooks`, kind: "directory", treatment: "read-only" }
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

  it("the command runs through prlimit, after the chdir", () => {
    const sep = args.indexOf("--")
    assert.deepStrictEqual(args.slice(sep - 2, sep), ["--chdir", root])
    assert.deepStrictEqual(args.slice(sep + 1), [
      "/usr/bin/prlimit", "--cpu=10", "--fsize=1024", "--nproc=64", `--as=${2 ** 30}`, "--core=0", "--", "bash", "-c", "true"
    ])
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
