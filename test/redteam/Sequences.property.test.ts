/**
 * Red team, model-based (issue 19): mixed sequences of file, git and bash calls through the real kernel
 * (`createKernel`, real adapters, sandbox auto) on a real temp git repository with canaries in protected, untracked
 * files and one outside the workspace. Bash runs scripts that file calls wrote (links, copies, moves, git stash/mv/add,
 * planted attributes), so the guard never sees a literal secret name. After every call: no output carries a canary
 * and nothing outside the workspace changed. (Committed secrets and secrets in skipped folders are open holes kept in
 * BashReach.test.ts, so they are left out of this alphabet.)
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createKernel } from "../../src/index.js"
import { snapshot } from "../serve/support/McpServeHarness.js"
import { callsOf, checkSequences, type FolderRun, runFolders, writeFiles } from "../support/Sequences.js"

const canary = "SEQCANARY"
const protectedFiles: Readonly<Record<string, string>> = {
  ".env": `TOKEN=${canary}ENV\n`,
  "a/.env.local": `TOKEN=${canary}AENV\n`,
  ".ssh/id_rsa": `${canary}SSH\n`,
  "a/b/.aws/credentials": `${canary}AWS\n`,
  // Code inside a secret folder: what repo_map would outline if it ever read it. (`secrets.py` itself is source code,
  // not a secret: issue 40.)
  "a/.aws/helper.py": `def ${canary}PY():\n    return 1\n`
}

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-rt-seq-")))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }

const template = (() => {
  const dir = path.join(scratch, "template")
  fs.mkdirSync(dir)
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: dir, env: gitEnv })
  git("init", "-q", "-b", "main")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "Dev")
  fs.mkdirSync(path.join(dir, "a"))
  fs.writeFileSync(path.join(dir, "a/plain.txt"), "plain\n")
  fs.writeFileSync(path.join(dir, "x.txt"), "x\n")
  git("add", "-A")
  git("commit", "-q", "-m", "first")
  writeFiles(dir, protectedFiles)
  return dir
})()

type Real = FolderRun

const folders = runFolders(scratch, template, canary)
const setup = (): Real => {
  const { parent, root } = folders()
  const kernel = createKernel({ workspace: root, workMode: "BUILD", policy: "allow-all", sandbox: "auto" })
  return { root, parent, kernel, outside: snapshot(parent, root) }
}

const Call = callsOf<Real>(canary, (real, what) => {
  expect(snapshot(real.parent, real.root), `${what}: outside`).toEqual(real.outside)
})

const name = fc.constantFrom("a", "a/b", "l", "h", "s", "x.txt", "a/plain.txt", ".env", ".ssh", "id_rsa", "up")
const pathArb = fc.array(name, { minLength: 1, maxLength: 2 }).map((segs) => segs.join("/"))
/** Script lines an adversary would chain; none names a secret literally in the bash command itself. */
const line = fc.constantFrom(
  "ln .env h",
  "ln -s .env l",
  "ln -s .. up",
  "ln -s a/.env.local l",
  "ln -s .ssh/id_rsa l",
  "cp -r a s",
  "mv a s",
  "mv s a",
  "mv .ssh s",
  "cat .env a/.env.local .ssh/id_rsa a/b/.aws/credentials",
  "cat up/outside.txt",
  "echo pwned > up/outside.txt",
  "git add -A",
  "git add -f .env",
  "git stash -u",
  "git stash pop",
  "git mv x.txt a/x.txt",
  "git commit -qam c",
  "git checkout -- .",
  "echo '* diff=x' > .gitattributes",
  "printf '[core]\\n\\tworktree = ..\\n' >> .git/config",
  "tar cf s/t.tar .env"
)
const script = fc.array(line, { minLength: 1, maxLength: 4 }).map((ls) => `${ls.join(" 2>&1; ")} 2>&1\n`)

const commands = [
  fc.tuple(fc.constantFrom("s.sh", "a/s.sh"), script).map(([p, c]) => new Call("write_file", { path: p, content: c })),
  fc.constantFrom("s.sh", "a/s.sh").map((p) => new Call("bash", { command: `sh ${p}` })),
  fc.constantFrom("ls -laR", "git status --short", "git log --stat | head -50").map((c) => new Call("bash", { command: c })),
  pathArb.map((p) => new Call("read_file", { path: p })),
  pathArb.map((p) => new Call("list_dir", { path: p })),
  fc.tuple(pathArb, pathArb).map(([from, to]) => new Call("move_file", { from, to })),
  fc.constant(new Call("grep", { pattern: "SEQCAN.RY|TOKEN" })),
  fc.constant(new Call("glob", { pattern: "**/*" })),
  fc.constant(new Call("repo_map", {})),
  fc.constant(new Call("git_status", {})),
  fc.constant(new Call("git_diff", {})),
  fc.constantFrom("HEAD", "HEAD~1", "stash@{0}").map((rev) => new Call("git_show", { rev })),
  fc.constant(new Call("git_log", {}))
]

describe("mixed sequences of file, git and bash calls", () => {
  it("no canary in any output, nothing outside the workspace changed", async () => {
    await checkSequences(commands, setup, { maxCommands: 8, numRuns: 50 })
  }, 180_000)

  it("the check has teeth: the same script calls without the sandbox leak a canary, with it bash really runs", async () => {
    const run = async (sandbox: "auto" | "none") => {
      const real = setup()
      const kernel = createKernel({ workspace: real.root, workMode: "BUILD", policy: "allow-all", sandbox })
      try {
        await kernel.run("write_file", { path: "s.sh", content: "cat .env 2>&1; echo ran > ran.txt\n" })
        return { out: JSON.stringify(await kernel.run("bash", { command: "sh s.sh" })), ran: fs.existsSync(path.join(real.root, "ran.txt")) }
      } finally {
        await kernel.close()
        await real.kernel.close()
      }
    }
    const bare = await run("none")
    expect(bare.out).toContain(`${canary}ENV`)
    const boxed = await run("auto")
    expect(boxed.ran).toBe(true)
    expect(boxed.out).not.toContain(canary)
  }, 60_000)
})
