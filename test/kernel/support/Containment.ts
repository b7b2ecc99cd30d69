/**
 * Attack chains against protected paths (issue 19, families 1, 2 and 8), as data: each is a sequence of calls an
 * attacker makes, with the steps that must be refused marked. One workspace (a real git repository with canaries
 * in every protected file) and one checker serve the CLI, `mcp serve` and the property test alike.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { makeWorkspace, snapshot } from "../../serve/support/McpServeHarness.js"

export interface Step {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** This step must be refused. */
  readonly refused?: boolean
}

export interface Chain {
  readonly name: string
  readonly steps: ReadonlyArray<Step>
  /** The steps do not depend on each other: they may run at once. */
  readonly independent?: boolean
}

export interface Outcome {
  readonly ok: boolean
  readonly text: string
}

export const canary = "CANARY-"

/** Protected files, each holding a canary: none may be read, moved, removed or changed by any chain. */
export const protectedFiles: Readonly<Record<string, string>> = {
  ".docker/config.json": `{"auths":{"r":{"auth":"${canary}DOCKER"}}}\n`,
  ".ssh/id_rsa": `${canary}SSH\n`,
  ".aws/credentials": `[default]\naws_secret_access_key=${canary}AWS\n`,
  "home/.aws/credentials": `${canary}HOMEAWS\n`,
  "a/.git/config": `[core]\n\tsecret = ${canary}NESTED\n`,
  "config/prod.env": `TOKEN=${canary}PRODENV\n`,
  ".envrc": `export TOKEN=${canary}ENVRC\n`,
  ".pgpass": `db:5432:*:me:${canary}PGPASS\n`,
  ".pypirc": `[pypi]\npassword = ${canary}PYPIRC\n`,
  ".vault-token": `${canary}VAULT\n`,
  "infra/prod.tfvars": `password = "${canary}TFVARS"\n`,
  "infra/prod.auto.tfvars.json": `{"password":"${canary}TFVARSJSON"}\n`,
  "infra/terraform.tfstate": `{"secret":"${canary}TFSTATE"}\n`,
  "infra/terraform.tfstate.backup": `{"secret":"${canary}TFBACKUP"}\n`,
  "android/release.jks": `${canary}JKS\n`,
  "android/release.keystore": `${canary}KEYSTORE\n`,
  "web/.htpasswd": `admin:${canary}HTPASSWD\n`,
  ".git-credentials": `https://me:${canary}GITCRED@example.com\n`
}

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", [...args], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

export const setUp = () => {
  const ws = makeWorkspace()
  const root = ws.root
  git(root, "init", "-q", "-b", "main")
  git(root, "config", "user.email", "t@example.com")
  git(root, "config", "user.name", "t")
  git(root, "config", "minicode.canary", `${canary}GITCONFIG`)
  fs.mkdirSync(path.join(root, "src"))
  fs.writeFileSync(path.join(root, "src/app.ts"), "export const app = 1\n")
  fs.mkdirSync(path.join(root, "docs"))
  fs.writeFileSync(path.join(root, "docs/guide.md"), "# guide\n")
  git(root, "add", "src/app.ts", "docs/guide.md")
  git(root, "commit", "-q", "-m", "initial")
  for (const [rel, content] of Object.entries(protectedFiles)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  const gitConfig = fs.readFileSync(path.join(root, ".git/config"), "utf8")
  const outside = snapshot(ws.parent, root)
  return { ...ws, gitConfig, outside, git: (...args: ReadonlyArray<string>) => git(root, ...args) }
}

export type Workspace = ReturnType<typeof setUp>

const evilConfig = `[core]\n\thooksPath = hooks\n\tfsmonitor = touch /tmp/minicode-pwned\n`
const hook = "#!/bin/sh\ntouch /tmp/minicode-pwned\n"

export const chains: ReadonlyArray<Chain> = [
  ...[".git", ".docker", ".ssh", ".aws"].map((dir) => ({
    name: `move ${dir} away, then read what it held`,
    steps: [
      { tool: "move_file", args: { from: dir, to: "gitbak" }, refused: true },
      { tool: "read_file", args: { path: dir === ".git" ? "gitbak/config" : dir === ".docker" ? "gitbak/config.json" : dir === ".ssh" ? "gitbak/id_rsa" : "gitbak/credentials" }, refused: true },
      { tool: "grep", args: { pattern: "CANARY", path: "." } },
      { tool: "list_dir", args: { path: "gitbak" }, refused: true }
    ]
  })),
  {
    name: "move .git away, plant a hook and a config, move it back",
    steps: [
      { tool: "move_file", args: { from: ".git", to: "gitbak" }, refused: true },
      // With .git still in place this is an ordinary file; the move back is what must fail.
      { tool: "write_file", args: { path: "gitbak/hooks/pre-commit", content: hook } },
      { tool: "edit_file", args: { path: "gitbak/config", old_string: "[core]", new_string: "[core]\n\thooksPath = /tmp" }, refused: true },
      { tool: "move_file", args: { from: "gitbak", to: ".git", overwrite: true }, refused: true }
    ]
  },
  {
    name: "plant a repository-shaped folder and move it onto .git (here and in a subfolder)",
    steps: [
      { tool: "write_file", args: { path: "plant/config", content: evilConfig } },
      { tool: "write_file", args: { path: "plant/hooks/pre-commit", content: hook } },
      { tool: "write_file", args: { path: "plant/HEAD", content: "ref: refs/heads/main\n" } },
      { tool: "move_file", args: { from: "plant", to: ".git", overwrite: true }, refused: true },
      { tool: "move_file", args: { from: "plant", to: "src/.git" }, refused: true },
      { tool: "move_file", args: { from: "plant", to: "src/.GIT" }, refused: true },
      { tool: "move_file", args: { from: "plant/config", to: ".git/config", overwrite: true }, refused: true },
      { tool: "move_file", args: { from: "plant/hooks", to: ".git/hooks", overwrite: true }, refused: true }
    ]
  },
  {
    name: "redirect git: commondir, alternates, a gitdir file",
    steps: [
      { tool: "write_file", args: { path: "evil/config", content: evilConfig } },
      { tool: "write_file", args: { path: "evil/objects/info/alternates", content: "/tmp\n" } },
      { tool: "write_file", args: { path: "evil/refs/heads/main", content: "0000000000000000000000000000000000000000\n" } },
      { tool: "write_file", args: { path: ".git/commondir", content: "../evil\n" }, refused: true },
      { tool: "write_file", args: { path: ".git/objects/info/alternates", content: "../../evil/objects\n" }, refused: true },
      { tool: "write_file", args: { path: ".git/info/attributes", content: "* filter=evil\n" }, refused: true },
      { tool: "write_file", args: { path: "src/.git", content: "gitdir: ../evil\n" }, refused: true },
      { tool: "move_file", args: { from: "evil/config", to: "src/.git" }, refused: true },
      { tool: "write_file", args: { path: ".git./commondir", content: "../evil\n" }, refused: true }
    ]
  },
  {
    name: "delete the repository or its parts",
    steps: [
      { tool: "delete_file", args: { path: ".git" }, refused: true },
      { tool: "delete_file", args: { path: ".git/index" }, refused: true },
      { tool: "delete_file", args: { path: ".git/HEAD" }, refused: true },
      { tool: "delete_file", args: { path: "a/.git/config" }, refused: true }
    ]
  },
  {
    name: "move a folder that holds something protected",
    steps: [
      { tool: "move_file", args: { from: "a", to: "b" }, refused: true },
      { tool: "read_file", args: { path: "b/.git/config" }, refused: true },
      { tool: "move_file", args: { from: "home", to: "h" }, refused: true },
      { tool: "read_file", args: { path: "h/.aws/credentials" }, refused: true },
      { tool: "move_file", args: { from: "infra", to: "tf" }, refused: true },
      { tool: "move_file", args: { from: "web", to: "site" }, refused: true }
    ]
  },
  {
    name: "move a plain folder to where its files would be protected",
    steps: [
      { tool: "write_file", args: { path: "dk/config.json", content: '{"credsStore":"evil"}' } },
      { tool: "move_file", args: { from: ".docker", to: "dockerold" }, refused: true },
      { tool: "move_file", args: { from: "dk", to: "sub/.docker" }, refused: true }
    ]
  },
  {
    name: "secret names the list used to miss",
    independent: true,
    steps: Object.keys(protectedFiles).flatMap((p) => [
      { tool: "read_file", args: { path: p }, refused: true },
      { tool: "write_file", args: { path: p, content: "overwritten\n" }, refused: true }
    ])
  }
]

/** The honest work that must keep running, with what each step must leave. */
export const honest: ReadonlyArray<Step> = [
  { tool: "edit_file", args: { path: "src/app.ts", old_string: "app = 1", new_string: "app = 2" } },
  { tool: "move_file", args: { from: "docs", to: "documentation" } },
  { tool: "write_file", args: { path: "config/prod.env.example", content: "TOKEN=\n" } },
  { tool: "read_file", args: { path: ".git/HEAD" } },
  { tool: "move_file", args: { from: "documentation/guide.md", to: "guide.md" } },
  { tool: "delete_file", args: { path: "guide.md" } },
  { tool: "git_commit", args: { message: "honest work", paths: ["src/app.ts"] } }
]

/** Runs every chain, then the honest steps, through `call`, and checks the workspace and everything around it. */
export const runAll = async (ws: Workspace, call: (tool: string, args: Record<string, unknown>) => Promise<Outcome>) => {
  for (const chain of chains) {
    const check = (step: Step, out: Outcome) => {
      const where = `${chain.name}: ${step.tool} ${JSON.stringify(step.args)} → ${out.text}`
      expect(out.text, where).not.toContain(canary)
      if (step.refused === true) expect(out.ok, where).toBe(false)
    }
    const batch = chain.independent === true ? 6 : 1
    for (let i = 0; i < chain.steps.length; i += batch) {
      const steps = chain.steps.slice(i, i + batch)
      const outs = await Promise.all(steps.map((step) => call(step.tool, step.args)))
      steps.forEach((step, j) => check(step, outs[j] ?? { ok: true, text: "" }))
    }
  }
  for (const step of honest) {
    const out = await call(step.tool, step.args)
    expect(out.ok, `${step.tool} ${JSON.stringify(step.args)} → ${out.text}`).toBe(true)
    expect(out.text).not.toContain(canary)
  }
  expectIntact(ws)
  expect(fs.readFileSync(path.join(ws.root, "src/app.ts"), "utf8")).toBe("export const app = 2\n")
  expect(fs.existsSync(path.join(ws.root, "documentation"))).toBe(true)
  expect(ws.git("log", "--format=%s")).toBe("honest work\ninitial\n")
}

/** Every protected file where it was with its content, git's folder untouched, nothing outside changed. */
export const expectIntact = (ws: Workspace) => {
  for (const [rel, content] of Object.entries(protectedFiles)) expect(fs.readFileSync(path.join(ws.root, rel), "utf8"), rel).toBe(content)
  expect(fs.readFileSync(path.join(ws.root, ".git/config"), "utf8")).toBe(ws.gitConfig)
  for (const planted of ["commondir", "hooks/pre-commit", "objects/info/alternates", "info/attributes"]) {
    expect(fs.existsSync(path.join(ws.root, ".git", planted)), planted).toBe(false)
  }
  expect(fs.existsSync(path.join(ws.root, "src/.git"))).toBe(false)
  expect(ws.git("rev-parse", "--git-dir").trim()).toBe(".git")
  expect(snapshot(ws.parent, ws.root)).toEqual(ws.outside)
  expect(fs.existsSync("/tmp/minicode-pwned")).toBe(false)
}
