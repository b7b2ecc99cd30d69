/**
 * Model-based property (issue 19): any sequence of file calls over a small alphabet of names that includes `.git`,
 * `gitbak`, `.ssh`, `.env`, `a`, `a/b`, run through the real kernel (`createKernel`, real adapters) on a real temp
 * workspace with canaries in every protected file and one outside the workspace. After every call: no output
 * carries a canary, every protected file is where it was with its content, `.git` is byte for byte what it was,
 * and nothing outside the workspace changed.
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

const canary = "CANARY-"
const protectedFiles: Readonly<Record<string, string>> = {
  ".ssh/id_rsa": `${canary}SSH\n`,
  ".env": `TOKEN=${canary}ENV\n`,
  "a/.env": `TOKEN=${canary}AENV\n`,
  "a/b/.git/config": `[core]\n\tx = ${canary}NESTED\n`,
  "gitbak/.aws/credentials": `${canary}AWS\n`,
  ".docker/config.json": `{"auth":"${canary}DOCKER"}\n`
}

/**
 * An oracle independent of the jail's own lists: the paths that are protected in this alphabet. Their set must never
 * change: no call creates, removes or moves one (a planted `.git`, a folder moved onto `.docker`, a secret moved away).
 */
const isProtected = (rel: string) => {
  const segs = rel.toLowerCase().split("/")
  const last = segs[segs.length - 1] ?? ""
  return segs.some((s) => s === ".git" || s === ".ssh" || s === ".aws") || last === ".env" || /(^|\/)\.docker\/config\.json$/.test(rel.toLowerCase())
}
const protectedSet = (root: string) =>
  fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((rel) => !rel.startsWith(".minicode") && isProtected(rel)).sort()

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-prop-")))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))

/** One repository made once and copied for every run (git init per run would cost more than the calls). */
const template = (() => {
  const dir = path.join(scratch, "template")
  fs.mkdirSync(dir)
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir, env })
  execFileSync("git", ["config", "minicode.canary", `${canary}GITCONFIG`], { cwd: dir, env })
  fs.writeFileSync(path.join(dir, ".git/hooks/pre-commit"), `#!/bin/sh\n# ${canary}HOOK\n`, { mode: 0o755 })
  fs.writeFileSync(path.join(dir, "plain.txt"), "plain\n")
  writeFiles(dir, protectedFiles)
  return dir
})()

interface Real extends FolderRun {
  readonly git: Record<string, string>
  readonly protectedPaths: ReadonlyArray<string>
}

const folders = runFolders(scratch, template, canary)
const setup = (): Real => {
  const { parent, root } = folders()
  const kernel = createKernel({ workspace: root, workMode: "BUILD", policy: "allow-all", sandbox: "none" })
  return { root, parent, kernel, git: snapshot(path.join(root, ".git")), outside: snapshot(parent, root), protectedPaths: protectedSet(root) }
}

const verify = (real: Real, what: string) => {
  for (const [rel, content] of Object.entries(protectedFiles)) expect(fs.readFileSync(path.join(real.root, rel), "utf8"), `${what}: ${rel}`).toBe(content)
  expect(snapshot(path.join(real.root, ".git")), `${what}: .git`).toEqual(real.git)
  expect(snapshot(real.parent, real.root), `${what}: outside`).toEqual(real.outside)
  expect(protectedSet(real.root), `${what}: protected paths`).toEqual(real.protectedPaths)
}

const Call = callsOf<Real>(canary, verify)

const name = fc.constantFrom(".git", "gitbak", ".ssh", ".env", "a", "a/b", "config", "hooks", "id_rsa", ".GIT", "x", ".docker", "config.json")
const pathArb = fc.array(name, { minLength: 1, maxLength: 3 }).map((segs) => segs.join("/"))
const content = fc.constantFrom("[core]\n\thooksPath = /tmp\n", "gitdir: ../gitbak\n", "#!/bin/sh\ntouch pwned\n", "x\n")

const commands = [
  fc.tuple(pathArb, content).map(([p, c]) => new Call("write_file", { path: p, content: c })),
  fc.tuple(pathArb, pathArb, fc.boolean()).map(([from, to, overwrite]) => new Call("move_file", { from, to, overwrite })),
  pathArb.map((p) => new Call("delete_file", { path: p })),
  pathArb.map((p) => new Call("read_file", { path: p })),
  pathArb.map((p) => new Call("list_dir", { path: p })),
  fc.tuple(pathArb, content).map(([p, c]) => new Call("edit_file", { path: p, old_string: "x", new_string: c })),
  pathArb.map((p) => new Call("grep", { pattern: "CANARY|core|x", path: p }))
]

describe("protected paths under generated sequences of file calls", () => {
  it("no canary in any output, nothing protected moved or changed, nothing outside changed", async () => {
    await checkSequences(commands, setup, { maxCommands: 14, numRuns: 100 })
  }, 300_000)

  it("the alphabet reaches the attacks: a chain of these calls moves folders, and honest ones still work", async () => {
    const real = setup()
    try {
      const moved = await real.kernel.run("move_file", { from: "x", to: "gitbak/x" })
      expect(moved.ok).toBe(false) // x does not exist yet: a failure, not a denial
      expect((await real.kernel.run("write_file", { path: "x/config", content: "x\n" })).ok).toBe(true)
      expect((await real.kernel.run("move_file", { from: "x", to: "y" })).ok).toBe(true)
      const planted = await real.kernel.run("move_file", { from: "y", to: ".git", overwrite: true })
      expect(planted.ok || JSON.stringify(planted)).toContain("jail.git-internals")
      expect((await real.kernel.run("write_file", { path: "dk/config.json", content: "{}\n" })).ok).toBe(true)
      const landed = await real.kernel.run("move_file", { from: "dk", to: "a/.docker" })
      expect(landed.ok || JSON.stringify(landed)).toContain("jail.protected-inside")
      const away = await real.kernel.run("move_file", { from: "gitbak", to: "z" })
      expect(away.ok || JSON.stringify(away)).toContain("jail.protected-inside")
      verify(real, "chain")
    } finally {
      await real.kernel.close()
    }
  }, 60_000)
})
