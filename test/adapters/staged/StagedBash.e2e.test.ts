/**
 * Staged bash (issue 41, MINICODE_BASH_STAGED=1) through the built CLI: bash runs on an overlay view, and its changes
 * reach the workspace only through the merge's rules and the journal. Honest work merges; what the jail, the git and
 * editor rules refuse never reaches the tree (named with its rule, kept in staging); undo restores a call byte for
 * byte; a killed call leaves the tree as it was; a file changed by someone else mid-call is a conflict, not
 * overwritten. Skipped with the reason where bwrap or overlayfs in a user namespace is unavailable.
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCli } from "../../support/Cli.js"
import { unavailable as noSandbox } from "../../support/Sandbox.js"

const bin = path.resolve("dist/bin.js")

const overlayMissing = (): string | undefined => {
  if (noSandbox !== undefined) return noSandbox
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-ovl-probe-"))
  for (const n of ["l", "u", "w", "m"]) fs.mkdirSync(path.join(dir, n))
  const r = spawnSync("unshare", ["-Urm", "sh", "-c", 'cd "$1" && mount -t overlay overlay -o lowerdir=l,upperdir=u,workdir=w,userxattr m && touch m/f', "p", dir], { encoding: "utf8" })
  const ok = fs.existsSync(path.join(dir, "u", "f"))
  spawnSync("rm", ["-rf", dir])
  return ok ? undefined : `overlayfs in a user namespace: ${r.stderr.trim() || r.error?.message || "failed"}`
}
const missing = overlayMissing()
const title = (name: string) => (missing === undefined ? name : `${name} [skipped: ${missing}]`)

const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) spawnSync("rm", ["-rf", dir])
})

const setup = () => {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-staged-")))
  made.push(parent)
  const root = path.join(parent, "ws")
  const state = path.join(parent, "state")
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=CANARY\n")
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  fs.writeFileSync(path.join(root, "keep.txt"), "keep\n")
  const env = { ...process.env, MINICODE_BASH_STAGED: "1", XDG_STATE_HOME: state }
  const cli = (args: ReadonlyArray<string>, extra: { readonly onPid?: (pid: number) => void } = {}) =>
    runCli(bin, [...args, "--cwd", root], { env, timeoutMs: 240_000, ...extra })
  const tool = (name: string, args: unknown, extra: { readonly onPid?: (pid: number) => void } = {}) =>
    cli(["tool", name, JSON.stringify(args), "--work-mode", "BUILD", "--policy", "allow-all"], extra)
  /** A script written by write_file and run by bash: the guard never sees what it names. */
  const script = async (body: string, extra: { readonly onPid?: (pid: number) => void } = {}) => {
    expect((await tool("write_file", { path: "s.sh", content: `${body}\n` })).status).toBe(0)
    return tool("bash", { command: "sh s.sh" }, extra)
  }
  const stagedCalls = () => {
    // `staged/<call>` in the workspace's state folder (`$XDG_STATE_HOME/minicode/<id>`); probes are not calls.
    const base = path.join(state, "minicode")
    const workspaces = fs.existsSync(base) ? fs.readdirSync(base).filter((w) => fs.existsSync(path.join(base, w, "staged"))) : []
    return workspaces.flatMap((w) =>
      fs.readdirSync(path.join(base, w, "staged")).filter((c) => !c.startsWith("probe-")).map((c) => path.join(base, w, "staged", c))
    )
  }
  return { root, parent, state, tool, script, cli, stagedCalls }
}

/** Every entry under `dir` but `.minicode/`: files by content hash and mode, links by target, folders by mode. */
const tree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel === "" ? e.name : `${rel}/${e.name}`
      if (r === ".minicode") continue
      const p = path.join(dir, r)
      const st = fs.lstatSync(p)
      if (st.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(p)}`
      else if (st.isDirectory()) {
        out[r] = `dir ${(st.mode & 0o777).toString(8)}`
        walk(r)
      } else out[r] = `file ${(st.mode & 0o777).toString(8)} ${createHash("sha256").update(fs.readFileSync(p)).digest("hex").slice(0, 16)}`
    }
  }
  walk("")
  return out
}
const text = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr
const git = (root: string, ...args: ReadonlyArray<string>) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8" })

describe.skipIf(missing !== undefined)(title("staged bash: honest work merges"), () => {
  it("an npm-test-like script, make and a build writing 10,000 files: merged, journaled, the staging removed", async () => {
    const { root, tool, script, cli, stagedCalls } = setup()
    fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ scripts: { test: "mkdir -p coverage && echo ok > coverage/report.txt" } }))
    fs.writeFileSync(path.join(root, "Makefile"), "out/app: a.txt\n\tmkdir -p out && cat a.txt a.txt > out/app\n")
    const r = await script("npm test --silent\nmake -s\nmkdir -p build\nfor i in $(seq 0 9999); do echo $i > build/f$i.js; done\nrm a.txt")
    expect(r.status, text(r)).toBe(0)
    expect(fs.readFileSync(path.join(root, "coverage/report.txt"), "utf8")).toBe("ok\n")
    expect(fs.readFileSync(path.join(root, "out/app"), "utf8")).toBe("a\na\n")
    expect(fs.readdirSync(path.join(root, "build")).length).toBe(10_000)
    expect(fs.readFileSync(path.join(root, "build/f9999.js"), "utf8")).toBe("9999\n")
    expect(fs.existsSync(path.join(root, "a.txt"))).toBe(false)
    expect(r.stdout).toContain("merged into the workspace")
    expect(stagedCalls()).toEqual([])
    const journal = await cli(["journal"])
    expect(journal.stdout).toMatch(/bash\.merge committed .*coverage\/report\.txt/)
    expect((await tool("read_file", { path: "keep.txt" })).stdout).toContain("keep")
  }, 900_000)

  it("git init, add, commit, a second commit, stash and rebase via bash: the repository works on the host; hook samples are refused", async () => {
    const { root, tool } = setup()
    const id = "-c user.name=t -c user.email=t@example.com"
    const first = await tool("bash", { command: `git init -q -b main && git add a.txt && git ${id} commit -qm one` })
    expect(first.status, text(first)).toBe(0)
    expect(first.stdout).toMatch(/refused \.git\/hooks\/\S+\.sample \(staged\.git-control\)/)
    expect(git(root, "log", "--format=%s").stdout).toBe("one\n")
    expect(fs.readdirSync(path.join(root, ".git")).includes("hooks") ? fs.readdirSync(path.join(root, ".git/hooks")) : []).toEqual([])
    fs.writeFileSync(path.join(root, "b.txt"), "b\n")
    const second = await tool("bash", { command: `git add b.txt && git ${id} commit -qm two && echo changed >> a.txt && git stash -q && git ${id} rebase -q HEAD~1 --onto HEAD~1` })
    expect(second.status, text(second)).toBe(0)
    expect(git(root, "log", "--format=%s").stdout).toBe("two\none\n")
    expect(git(root, "stash", "list").stdout).toContain("stash@{0}")
    expect(git(root, "status", "--porcelain").stdout).toBe("?? .env\n?? keep.txt\n")
    expect(git(root, "fsck", "--no-progress").status).toBe(0)
  }, 300_000)
})

describe.skipIf(missing !== undefined)(title("staged bash: refused changes never reach the workspace"), () => {
  it(".env, .git/config, hooks, a folderOpen task, a symlink out, a nested .minicode record: never reach the workspace; what reached staging is refused with its rule and kept", async () => {
    const { root, tool, script, cli, stagedCalls } = setup()
    expect((await tool("bash", { command: "git init -q && git init -q sub" })).status).toBe(0)
    expect((await tool("write_file", { path: "s.sh", content: "true\n" })).status).toBe(0)
    const before = tree(root)
    const task = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: "touch /tmp/pwned", runOptions: { runOn: "folderOpen" } }] })
    const r = await script(
      [
        // The sandbox's own binds stop these at the source (a masked .env, a read-only .git/config, a masked hooks folder).
        "echo EVIL > .env",
        "printf '[core]\\n\\tfsmonitor = ./x.sh\\n' > cfg && cat cfg > .git/config; mv cfg .git/config",
        "mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit",
        // These reach the staging layer: the merge refuses them.
        "mkdir -p app && echo EVIL > app/.env",
        "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > sub/.git/hooks/post-checkout",
        // A refused file whose name holds an escape sequence: listed by recover --staged as text, never as a control.
        "ln -s /etc/passwd \"$(printf 'esc\\033[31mred')\"",
        "printf '* filter=evil\\n' > sub/.git/info/attributes",
        "echo ../../evil > sub/.git/commondir",
        `mkdir -p .vscode && printf '%s' '${task}' > .vscode/tasks.json`,
        "ln -s /etc/passwd out",
        "mkdir -p nested/.minicode && echo '{\"calls\":[]}' > nested/.minicode/gitcontrol.json",
        "echo fine > fine.txt"
      ].join("\n")
    )
    const out = text(r)
    for (const rule of ["jail.sensitive", "staged.git-control", "jail.editor-control", "jail.symlink-escape", "jail.minicode-state"]) expect(out).toContain(rule)
    const after = tree(root)
    expect(fs.readFileSync(path.join(root, ".env"), "utf8")).toBe("TOKEN=CANARY\n")
    expect(fs.readFileSync(path.join(root, ".git/config"), "utf8")).not.toContain("fsmonitor")
    for (const p of [".git/hooks/pre-commit", "app/.env", "sub/.git/hooks/post-checkout", "sub/.git/info/attributes", "sub/.git/commondir", ".vscode/tasks.json", "out", "nested/.minicode"]) {
      expect(fs.existsSync(path.join(root, p)), p).toBe(false)
    }
    // Nothing but fine.txt, s.sh and cfg changed: folders made only to hold refused files (.vscode, app, nested) are
    // not made either.
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]).sort()
    expect(changed).toEqual(["cfg", "fine.txt", "s.sh"])
    // This call's, and git init's (its hook samples refused).
    expect(stagedCalls().length).toBe(2)
    const listed = await cli(["recover", "--staged"])
    expect(listed.stdout).toContain("sub/.git/commondir (staged.git-control)")
    expect(listed.stdout).toContain("esc\\u001b[31mred (jail.symlink-escape)")
    expect(listed.stdout).not.toContain("\u001b")
    const discarded = await cli(["recover", "--staged", "--discard"])
    expect(discarded.status, text(discarded)).toBe(0)
    expect(stagedCalls()).toEqual([])
  }, 300_000)
})

describe.skipIf(missing !== undefined)(title("staged bash: files git's configuration makes its own"), () => {
  it("core.hooksPath's folder, an included config and core.fsmonitor's program: bash's changes to them are refused (jail.git-internals)", async () => {
    const { root, tool, script } = setup()
    git(root, "init", "-q")
    fs.mkdirSync(path.join(root, ".githooks"))
    fs.mkdirSync(path.join(root, "tools"))
    fs.writeFileSync(path.join(root, "tools/fsmon.sh"), "#!/bin/sh\n")
    fs.writeFileSync(path.join(root, "project.gitconfig"), "[core]\n")
    fs.appendFileSync(path.join(root, ".git/config"), "[core]\n\thooksPath = .githooks\n\tfsmonitor = tools/fsmon.sh\n[include]\n\tpath = ../project.gitconfig\n")
    expect((await tool("write_file", { path: "s.sh", content: "true\n" })).status).toBe(0)
    const before = tree(root)
    const r = await script("printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .githooks/pre-commit\necho 'touch /tmp/pwned' >> tools/fsmon.sh\nprintf '[core]\\n\\tpager = evil\\n' > project.gitconfig\necho ok > tools/fine.txt")
    expect(text(r)).toContain("jail.git-internals")
    const after = tree(root)
    expect(Object.keys(after).filter((k) => after[k] !== before[k]).sort()).toEqual(["s.sh", "tools/fine.txt"])
  }, 300_000)
})

describe.skipIf(missing !== undefined)(title("staged bash: undo, kills, conflicts"), () => {
  it("undo of a bash call restores the tree byte for byte (files made, changed, removed, modes), and redo puts it back", async () => {
    const { root, tool, cli } = setup()
    fs.mkdirSync(path.join(root, "src"))
    fs.writeFileSync(path.join(root, "src/x.bin"), Buffer.from([0, 1, 2, 255]))
    expect((await tool("write_file", { path: "s.sh", content: "printf '\\377\\000z' > src/x.bin; chmod 755 a.txt; rm keep.txt; mkdir -p new/deep; echo n > new/deep/n.txt; echo more >> a.txt\n" })).status).toBe(0)
    const tree0 = tree(root)
    const r = await tool("bash", { command: "sh s.sh" })
    expect(r.status, text(r)).toBe(0)
    const tree1 = tree(root)
    expect(tree1).not.toEqual(tree0)
    const undo = await cli(["undo"])
    expect(undo.status, text(undo)).toBe(0)
    expect(undo.stdout).not.toContain("is not undone")
    // Folders the call made stay (empty), as after a file tool's undo; every file is as before.
    const restored = tree(root)
    expect(Object.fromEntries(Object.entries(restored).filter(([k, v]) => !(k.startsWith("new") && v.startsWith("dir"))))).toEqual(tree0)
    const redo = await cli(["redo"])
    expect(redo.status, text(redo)).toBe(0)
    expect(tree(root)).toEqual(tree1)
  }, 300_000)

  it("a CLI killed at random points of bash calls (50 trials): the tree never holds a partial call's writes; recover lists and discards them", async () => {
    const { root, tool, cli, stagedCalls } = setup()
    const tree0 = tree(root)
    let killedMidCall = 0
    for (let trial = 0; trial < 50; trial++) {
      let pid = 0
      const known = new Set(stagedCalls())
      const run = tool("bash", { command: "for i in $(seq 1 400); do echo $i > part$i; done; sleep 2; echo done > last" }, { onPid: (p) => (pid = p) })
      // The call is under way once its staging folder exists; then killed at a random point of it.
      let ended: Awaited<typeof run> | undefined
      void run.then((r) => (ended = r))
      while (ended === undefined && !stagedCalls().some((c) => !known.has(c))) await new Promise((resolve) => setTimeout(resolve, 20))
      const delay = Math.floor(Math.random() * 1200)
      await new Promise((resolve) => setTimeout(resolve, delay))
      if (pid !== 0) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // ended already
        }
      }
      const done = await run
      if (done.signal === "SIGKILL") killedMidCall++
      expect(tree(root), `trial ${trial} (killed ${delay} ms into the call)`).toEqual(tree0)
    }
    expect(killedMidCall).toBeGreaterThan(40)
    const listed = await cli(["recover", "--staged"])
    expect(listed.stdout).toContain("never merged")
    expect((await cli(["recover", "--staged", "--discard"])).status).toBe(0)
    expect(stagedCalls()).toEqual([])
  }, 600_000)

  it("a file changed on the host after the call started is a conflict: not overwritten, bash's version kept", { timeout: 300_000 }, async () => {
    const { root, tool, stagedCalls } = setup()
    const call = tool("bash", { command: "echo bash > a.txt; echo other > b.txt; sleep 3" })
    // Wait until the call's upper layer holds its a.txt: the call is under way.
    const upperA = () => stagedCalls().some((c) => fs.existsSync(path.join(c, "upper", "a.txt")))
    for (let i = 0; i < 600 && !upperA(); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(upperA()).toBe(true)
    fs.writeFileSync(path.join(root, "a.txt"), "host\n")
    const r = await call
    expect(r.status, text(r)).toBe(0)
    expect(r.stdout).toContain("conflict: a.txt")
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("host\n")
    expect(fs.readFileSync(path.join(root, "b.txt"), "utf8")).toBe("other\n")
    expect(stagedCalls().length).toBe(1)
  })
})
