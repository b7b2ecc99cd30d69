/**
 * Red team, model-based (issue 19): the third invariant over sequences of calls, "no program the repository controls
 * runs outside the sandbox". Generated sequences of sandboxed bash scripts (written by write_file, so no guard sees
 * what they name) and file tools plant the programs a user's next action runs on the host: git hooks (the top
 * repository's, a nested one's made by `git init`, a `core.hooksPath`), `core.fsmonitor`, a filter, VS Code's
 * `folderOpen` tasks, Claude Code hooks and MCP server lists below the top, each staged under another name and
 * moved, copied or linked into place by a later call. After every call, the user acts on the host: `git status`
 * and `git commit` in every repository there, and an editor opening every folder (every command file reachable by
 * name, through links too, is read). Nothing planted may run: the marker file outside the workspace never appears,
 * and no command file holds a planted command.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createKernel } from "../../src/index.js"
import { title, unavailable } from "../support/Sandbox.js"
import { callsOf, checkSequences, type Real } from "../support/Sequences.js"

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-rt-ctl-")))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))
const marker = path.join(scratch, "HOSTRAN")
const home = path.join(scratch, "home")
fs.mkdirSync(home)
const gitEnv = { ...process.env, HOME: home, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }

const run = `touch ${marker}`
const tasks = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: run, runOptions: { runOn: "folderOpen" } }] })
const hooks = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: run }] }] } })
const servers = JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", run] } } })
const hook = `printf '#!/bin/sh\\n${run}\\n'`

/** Script lines an adversary would chain, each planting or moving one piece. */
const line = fc.constantFrom(
  `mkdir -p a/.vscode && printf '%s' '${tasks}' > a/.vscode/tasks.json`,
  `mkdir -p a/vs && printf '%s' '${tasks}' > a/vs/tasks.json`,
  "mv a/vs a/.vscode",
  "cp -r a/vs .vscode",
  "ln -s a/vs .vscode",
  "ln -s vs a/.vscode",
  `mkdir -p a/b/.claude && printf '%s' '${hooks}' > a/b/.claude/settings.json`,
  `mkdir -p a/cl && printf '%s' '${hooks}' > a/cl/settings.json && mv a/cl a/.claude`,
  `printf '%s' '${servers}' > m.json && ln m.json a/.mcp.json`,
  "mv m.json .mcp.json",
  "git init -q a",
  `mkdir -p a/.git/hooks && ${hook} > a/.git/hooks/pre-commit && chmod +x a/.git/hooks/pre-commit`,
  `${hook} > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
  `mkdir -p h && ${hook} > h/pre-commit && chmod +x h/pre-commit && git config core.hooksPath h`,
  "git -C a config core.hooksPath ../h",
  `printf '[core]\\n\\tfsmonitor = ${run}\\n' >> a/.git/config`,
  `echo '* filter=x' > .gitattributes && git config filter.x.clean '${run}; cat'`,
  "mv a/.git a/gitbak; mv a/gitbak a/.git",
  "cp -r .git a/.git",
  "git add -A; git commit -qm c"
)
const script = fc.array(line, { minLength: 1, maxLength: 4 }).map((ls) => `${ls.join(" 2>&1; ")} 2>&1\n`)
const place = fc.constantFrom("a/vs", "a/.vscode", ".vscode", "a/.claude", "a/cl", "a/.git", "a/gitbak", "h", "m.json", ".mcp.json", "a/.mcp.json")

/** What makes each command file run something: its name's key in the content (tasks.json holding a server list runs nothing). */
const kinds = [
  { name: /(^|\/)\.vscode\/tasks\.json$/, key: "folderOpen" },
  { name: /(^|\/)\.claude\/settings(\.local)?\.json$/, key: '"hooks"' },
  { name: /(^|\/)\.mcp\.json$/, key: "mcpServers" }
]

/** Every command file an editor or agent would read, reached by name as the user's tools would (links followed), and its key. */
const commandFiles = (root: string): ReadonlyArray<{ readonly file: string; readonly key: string }> => {
  const out: Array<{ readonly file: string; readonly key: string }> = []
  const visit = (dir: string, depth: number) => {
    if (depth > 8) return
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name)
      let st: fs.Stats | undefined
      try {
        st = fs.statSync(p, { throwIfNoEntry: false })
      } catch {
        continue // a link loop (ELOOP): no tool reaches a file through it
      }
      if (st === undefined || name === ".git" || name === ".minicode") continue
      if (st.isDirectory()) {
        if (fs.realpathSync(p).startsWith(root + path.sep)) visit(p, depth + 1)
      } else {
        const kind = kinds.find((r) => r.name.test(path.relative(root, p)))
        if (kind !== undefined) out.push({ file: p, key: kind.key })
      }
    }
  }
  visit(root, 0)
  return out
}

/** The user's next actions on the host: git in every repository the workspace holds (the top and `a`). */
const userActs = (root: string) => {
  for (const dir of [root, path.join(root, "a")]) {
    if (!fs.existsSync(path.join(dir, ".git"))) continue
    for (const args of [["status", "--short"], ["commit", "--allow-empty", "-qm", "probe"]]) {
      try {
        execFileSync("git", args, { cwd: dir, env: gitEnv, stdio: "ignore", timeout: 10_000 })
      } catch {
        // A repository the calls broke: git refuses, nothing runs.
      }
    }
  }
}

interface Run extends Real {
  readonly root: string
}
let runs = 0
const setup = (sandbox: "auto" | "none" = "auto"): Run => {
  const root = path.join(scratch, `run-${++runs}`)
  fs.mkdirSync(path.join(root, "a"), { recursive: true })
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, env: gitEnv })
  git("init", "-q", "-b", "main")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "Dev")
  fs.writeFileSync(path.join(root, "a/plain.txt"), "plain\n")
  git("add", "-A")
  git("commit", "-q", "-m", "first")
  return { root, kernel: createKernel({ workspace: root, workMode: "BUILD", policy: "allow-all", sandbox }) }
}

const Call = callsOf<Run>("\u0000never", (real, what) => {
  userActs(real.root)
  expect(fs.existsSync(marker), `${what}: a planted program ran on the host`).toBe(false)
  for (const { file, key } of commandFiles(real.root)) {
    const content = fs.readFileSync(file, "utf8")
    expect(content.includes(key) && content.includes(marker), `${what}: ${file} runs a planted command`).toBe(false)
  }
})

const commands = [
  fc.tuple(fc.constantFrom("s.sh", "a/s.sh"), script).map(([p, c]) => new Call("write_file", { path: p, content: c })),
  fc.constantFrom("s.sh", "a/s.sh").map((p) => new Call("bash", { command: `sh ${p}` })),
  fc.tuple(fc.constantFrom("a/vs/tasks.json", "a/.vscode/tasks.json", "m.json", "a/.mcp.json"), fc.constantFrom(tasks, servers)).map(
    ([p, content]) => new Call("write_file", { path: p, content })
  ),
  fc.tuple(place, place).map(([from, to]) => new Call("move_file", { from, to })),
  fc.constant(new Call("git_status", {})),
  fc.constant(new Call("git_diff", {}))
]

describe.skipIf(unavailable !== undefined)(title("sequences that plant programs for the user's next action"), () => {
  it("nothing planted runs when the user next uses git or opens a folder", async () => {
    await checkSequences(commands, () => setup(), { maxCommands: 8, numRuns: 50 })
  }, 300_000)

  it("the check has teeth: without the sandbox, a hook and a nested task planted by bash stay and the hook runs", async () => {
    const real = setup("none")
    try {
      const plant = `${hook} > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; mkdir -p a/vs && printf '%s' '${tasks}' > a/vs/tasks.json\n`
      await real.kernel.run("write_file", { path: "s.sh", content: plant })
      await real.kernel.run("bash", { command: "sh s.sh" })
      await real.kernel.run("write_file", { path: "s.sh", content: "mv a/vs a/.vscode\n" })
      await real.kernel.run("bash", { command: "sh s.sh" })
      expect(commandFiles(real.root).map((f) => path.relative(real.root, f.file))).toEqual(["a/.vscode/tasks.json"])
      userActs(real.root)
      expect(fs.existsSync(marker)).toBe(true)
    } finally {
      fs.rmSync(marker, { force: true })
      await real.kernel.close()
    }
  }, 60_000)
})
