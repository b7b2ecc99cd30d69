/**
 * Issue 41 (red team): git-hook managers' configs were no controls. `write_file .pre-commit-config.yaml` adding a
 * `repo: local`, `language: system` hook was accepted, and the user's next `git commit -a` ran it on the host;
 * `lefthook.yml` and `.lintstagedrc` the same. Now they are in the editor controls' family (`HookManagers`), with
 * the same guarantees for write_file, edit_file, move_file and sandboxed bash; in `package.json` only the keys hook
 * managers read count. Through the built CLI and `mcp serve`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, isErrorResult, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace, served } from "./support/Attack.js"

const cleanups = attackFile()

const cmd = "touch /tmp/minicode-hook-pwned"
const planted: ReadonlyArray<readonly [string, string]> = [
  [".pre-commit-config.yaml", `repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: ${cmd}\n        language: system\n        pass_filenames: false\n`],
  ["lefthook.yml", `pre-commit:\n  commands:\n    x:\n      run: ${cmd}\n`],
  [".lefthook.yml", `pre-push:\n  commands:\n    x:\n      run: ${cmd}\n`],
  [".config/lefthook.yml", `pre-commit:\n  commands:\n    x:\n      run: ${cmd}\n`],
  ["lefthook-local.yml", `pre-commit:\n  commands:\n    x:\n      run: ${cmd}\n`],
  [".lefthook/pre-commit/x.sh", `#!/bin/sh\n${cmd}\n`],
  [".lintstagedrc", JSON.stringify({ "*": cmd })],
  [".lintstagedrc.json", JSON.stringify({ "*": cmd })],
  [".lintstagedrc.yml", `"*": ${cmd}\n`],
  ["lint-staged.config.js", `require("child_process").execSync("${cmd}")\n`],
  [".simple-git-hooks.json", JSON.stringify({ "pre-commit": cmd })],
  [".overcommit.yml", `PreCommit:\n  X:\n    enabled: true\n    command: ['sh', '-c', '${cmd}']\n`],
  [".commitlintrc.js", `require("child_process").execSync("${cmd}")\n`],
  [".husky/pre-commit", `${cmd}\n`],
  ["packages/web/.pre-commit-config.yaml", `repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: ${cmd}\n        language: system\n`],
  ["package.json", JSON.stringify({ name: "x", "lint-staged": { "*": cmd } })],
  ["package.json", JSON.stringify({ name: "x", "simple-git-hooks": { "pre-commit": cmd } })],
  ["package.json", JSON.stringify({ name: "x", husky: { hooks: { "pre-commit": cmd } } })]
]

const pkg = (o: Record<string, unknown>) => `${JSON.stringify({ name: "app", version: "1.0.0", scripts: { test: "vitest" }, ...o }, null, 2)}\n`

describe.skipIf(unavailable !== undefined)(title("git-hook managers' configs (issue 41)"), () => {
  it("write_file plants no hook in any of them; honest files are written", async () => {
    const { toolAsync, root } = attackWorkspace(cleanups)
    // The first through the built CLI, every one through one mcp serve (a CLI process per name cost ~0.35 CPU-s).
    const [file0, content0] = planted[0] ?? ["", ""]
    const r = await toolAsync("write_file", { path: file0, content: content0 })
    expect(r.status, `${file0}: ${r.stdout}`).not.toBe(0)
    expect(r.stdout, file0).toMatch(/jail\.editor-control/)
    expect(fs.existsSync(path.join(root, file0)), file0).toBe(false)
    const s = await served(cleanups, root)
    for (const [file, content] of planted) {
      const w = await s.call("write_file", { path: file, content })
      expect(w.ok, `${file}: ${w.text}`).toBe(false)
      expect(w.text, file).toMatch(/jail\.editor-control/)
      expect(fs.existsSync(path.join(root, file)), file).toBe(false)
    }
    await s.close()
    for (const [file, content] of [
      ["package.json", pkg({ scripts: { test: "vitest run", postinstall: "node x.js" }, dependencies: { a: "1" } })],
      [".pre-commit-hooks.yaml", `- id: x\n  name: x\n  entry: x\n  language: python\n`],
      [".pre-commit-config.yaml", "# hooks come later\n"]
    ] as const) {
      const r = await toolAsync("write_file", { path: file, content })
      expect(r.status, `${file}: ${r.stdout}`).toBe(0)
      expect(fs.readFileSync(path.join(root, file), "utf8")).toBe(content)
    }
  }, 300_000)

  it("edit_file and move_file add none; a package.json scripts edit and a moved package pass", async () => {
    const { toolAsync, root } = attackWorkspace(cleanups)
    const mine = `pre-commit:\n  commands:\n    lint:\n      run: npm run lint\n`
    fs.writeFileSync(path.join(root, "lefthook.yml"), mine)
    fs.writeFileSync(path.join(root, "package.json"), pkg({ "lint-staged": { "*.ts": "eslint --fix" } }))
    const changed = await toolAsync("edit_file", { path: "lefthook.yml", old_string: "npm run lint", new_string: cmd })
    expect(changed.status, changed.stdout).not.toBe(0)
    expect(changed.stdout).toMatch(/jail\.editor-control/)
    expect(fs.readFileSync(path.join(root, "lefthook.yml"), "utf8")).toBe(mine)
    const key = await toolAsync("edit_file", { path: "package.json", old_string: "eslint --fix", new_string: cmd })
    expect(key.status, key.stdout).not.toBe(0)
    expect(key.stdout).toContain("lint-staged")
    // Honest: the scripts beside it.
    const scripts = await toolAsync("edit_file", { path: "package.json", old_string: `"test": "vitest"`, new_string: `"test": "vitest run",\n    "lint": "eslint ."` })
    expect(scripts.status, scripts.stdout).toBe(0)
    expect(fs.readFileSync(path.join(root, "package.json"), "utf8")).toContain(`"lint": "eslint ."`)
    // Staged under an innocent name, then moved onto the name.
    fs.writeFileSync(path.join(root, "staged.json"), JSON.stringify({ "*": cmd }))
    const moved = await toolAsync("move_file", { from: "staged.json", to: ".lintstagedrc" })
    expect(moved.status, moved.stdout).not.toBe(0)
    expect(fs.existsSync(path.join(root, ".lintstagedrc"))).toBe(false)
    // A folder moved so that a file lands at the name.
    fs.mkdirSync(path.join(root, "stash/sub"), { recursive: true })
    fs.writeFileSync(path.join(root, "stash/sub/lefthook.yml"), `pre-commit:\n  commands:\n    x:\n      run: ${cmd}\n`)
    fs.mkdirSync(path.join(root, "proj"))
    const folder = await toolAsync("move_file", { from: "stash/sub", to: "proj/app" })
    expect(folder.status, folder.stdout).not.toBe(0)
    expect(fs.existsSync(path.join(root, "proj/app"))).toBe(false)
    // A symlink moved to a script folder's name: what it leads to would become `.husky/`.
    fs.mkdirSync(path.join(root, "hooks"))
    fs.writeFileSync(path.join(root, "hooks/pre-commit"), `${cmd}\n`)
    fs.symlinkSync("hooks", path.join(root, "hookslink"))
    const link = await toolAsync("move_file", { from: "hookslink", to: ".husky" })
    expect(link.status, link.stdout).not.toBe(0)
    expect(fs.existsSync(path.join(root, ".husky"))).toBe(false)
    // Honest: a package (its package.json with no hook keys) moved.
    fs.mkdirSync(path.join(root, "packages/old"), { recursive: true })
    fs.writeFileSync(path.join(root, "packages/old/package.json"), pkg({ name: "old" }))
    const pack = await toolAsync("move_file", { from: "packages/old", to: "packages/new" })
    expect(pack.status, pack.stdout).toBe(0)
    expect(fs.existsSync(path.join(root, "packages/new/package.json"))).toBe(true)
  }, 300_000)

  it("sandboxed bash leaves no planted hook after the call; the user's own config stays; a dependency edit stays", async () => {
    const { scriptAsync, root } = attackWorkspace(cleanups)
    const theirs = `repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n`
    fs.writeFileSync(path.join(root, ".pre-commit-config.yaml"), theirs)
    fs.writeFileSync(path.join(root, "package.json"), pkg({ dependencies: { a: "1" } }))
    const writes = planted
      .filter(([f]) => f !== "package.json" && f !== ".pre-commit-config.yaml")
      .map(([f, text]) => `mkdir -p '${path.dirname(f)}' && printf '%s' '${text.replace(/'/g, "'\\''")}' > '${f}'`)
    const out = await scriptAsync(`${writes.join("\n")}
printf '%s' '${planted[0]?.[1] ?? ""}' > .pre-commit-config.yaml 2>/dev/null || echo theirs-read-only
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("package.json"));p["lint-staged"]={"*":"${cmd}"};fs.writeFileSync("package.json",JSON.stringify(p,null,2))'
test -s lefthook.yml && test -s .husky/pre-commit && grep -q lint-staged package.json && echo planted`)
    expect(out).toContain("planted")
    // The live sandbox shows the user's config read-only; staged bash (issue 41) writes it in its view and the merge
    // refuses the change by the same rule.
    expect(out).toMatch(/theirs-read-only|refused \.pre-commit-config\.yaml \(jail\.editor-control\)/)
    for (const [f] of planted) if (f !== "package.json" && f !== ".pre-commit-config.yaml") expect(fs.existsSync(path.join(root, f)), f).toBe(false)
    expect(fs.readFileSync(path.join(root, ".pre-commit-config.yaml"), "utf8")).toBe(theirs)
    expect(fs.readFileSync(path.join(root, "package.json"), "utf8")).toBe(pkg({ dependencies: { a: "1" } }))
    // Honest: `npm install`'s kind of change to package.json is the call's to keep.
    const dep = await scriptAsync(`node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("package.json"));p.dependencies.b="2";fs.writeFileSync("package.json",JSON.stringify(p,null,2)+"\\n")' && echo added`)
    expect(dep).toContain("added")
    expect(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))).toMatchObject({ dependencies: { a: "1", b: "2" } })
  }, 300_000)

  it("mcp serve: write_file of a pre-commit hook is refused, and bash's lefthook.yml is gone after the call", async () => {
    const { root } = attackWorkspace(cleanups)
    const s = await connect(root, ["--allow-all", "--no-ask"])
    try {
      const w = await s.client.callTool({ name: "write_file", arguments: { path: ".pre-commit-config.yaml", content: planted[0]?.[1] ?? "" } })
      expect(isErrorResult(w)).toBe(true)
      expect(textOf(w)).toContain("jail.editor-control")
      expect(fs.existsSync(path.join(root, ".pre-commit-config.yaml"))).toBe(false)
      const b = await s.client.callTool({ name: "bash", arguments: { command: `printf 'pre-commit:\\n  commands:\\n    x:\\n      run: ${cmd}\\n' > lefthook.yml && mkdir -p .husky && echo '${cmd}' > .husky/pre-commit && echo planted` } }, undefined, { timeout: 120_000 })
      expect(textOf(b)).toContain("planted")
      expect(fs.existsSync(path.join(root, "lefthook.yml"))).toBe(false)
      expect(fs.existsSync(path.join(root, ".husky/pre-commit"))).toBe(false)
      const e = await s.client.callTool({ name: "write_file", arguments: { path: "package.json", content: pkg({ scripts: { build: "tsc" } }) } })
      expect(isErrorResult(e), textOf(e)).toBe(false)
    } finally {
      await s.close()
    }
  }, 300_000)
})
