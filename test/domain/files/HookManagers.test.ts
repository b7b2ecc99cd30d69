/**
 * Git-hook managers' configs are controls (issue 41): what they name runs on the host at the user's next commit or
 * push. Table tests of the pure decision (`EditorControls.kindOf`/`judge` over `HookManagers`).
 */
import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as EditorControls from "../../../src/domain/files/EditorControls.js"

const judge = EditorControls.judge

const preCommitLocal = `repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: touch /tmp/pwned\n        language: system\n`

describe("hook-manager configs: their names, at any depth", () => {
  it("names every family's files", () => {
    const table: Record<string, ReadonlyArray<string>> = {
      "pre-commit": [".pre-commit-config.yaml", ".pre-commit-config.yml", "sub/.pre-commit-config.yaml"],
      lefthook: ["lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", ".lefthook-local.yaml", ".config/lefthook.yml", "lefthook.json", "lefthook.toml", "pkg/lefthook.yml"],
      "lint-staged": [".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml", ".lintstagedrc.js", ".lintstagedrc.cjs", ".lintstagedrc.mjs", "lint-staged.config.js", "lint-staged.config.cjs", "lint-staged.config.mjs", "lint-staged.config.ts", ".nano-staged.json", ".nanostagedrc"],
      "simple-git-hooks": [".simple-git-hooks.json", ".simple-git-hooks.js", ".simple-git-hooks.cjs", "simple-git-hooks.json", "simple-git-hooks.js"],
      overcommit: [".overcommit.yml"],
      commitlint: [".commitlintrc", ".commitlintrc.json", ".commitlintrc.yml", "commitlint.config.js", "commitlint.config.ts"],
      "hook-script": [".husky/pre-commit", ".husky/_/husky.sh", "sub/.husky/pre-push", ".lefthook/pre-commit/lint.sh", ".lefthook-local/commit-msg/x", ".git-hooks/pre_commit/check.rb"],
      "package-json": ["package.json", "packages/web/package.json"]
    }
    for (const [kind, paths] of Object.entries(table)) for (const p of paths) expect(EditorControls.kindOf(p), p).toBe(kind)
    for (const other of [".pre-commit-hooks.yaml", "lefthook.md", "docs/lint-staged.md", "package-lock.json", "src/husky.ts", ".github/workflows/ci.yml", "config.yml"]) {
      expect(EditorControls.kindOf(other), other).toBeUndefined()
    }
    // The workspace walk's cheap filters let every one through.
    for (const paths of Object.values(table))
      for (const p of paths) expect(EditorControls.mayBeControl(p.split("/").pop() ?? "") || EditorControls.mayBeScript(`/ws/${p}`), p).toBe(true)
    // A symlink at a script folder's name leads a later write into place.
    for (const f of [".husky", ".lefthook", "sub/.lefthook-local", ".git-hooks"]) expect(EditorControls.isControlFolder(f), f).toBe(true)
  })
})

describe("hook-manager configs: judged", () => {
  it("refuses a config made or changed to run something, naming the manager", () => {
    expect(judge(".pre-commit-config.yaml", undefined, preCommitLocal)).toMatchObject({ rule: "jail.editor-control", reason: expect.stringContaining("pre-commit") })
    expect(judge(".pre-commit-config.yaml", "repos: []\n", preCommitLocal)?.reason).toContain("git commit")
    expect(judge("lefthook.yml", "pre-commit:\n  commands:\n    lint:\n      run: npm run lint\n", "pre-commit:\n  commands:\n    lint:\n      run: touch /tmp/pwned\n")).toBeDefined()
    expect(judge(".lintstagedrc", undefined, '{"*": "touch /tmp/pwned"}')).toBeDefined()
    expect(judge("lint-staged.config.js", undefined, "require('child_process').execSync('touch /tmp/pwned')\n")).toBeDefined()
    expect(judge(".husky/pre-commit", "npm test\n", "touch /tmp/pwned\nnpm test\n")).toBeDefined()
    expect(judge(".commitlintrc.json", undefined, '{"extends": ["./evil.js"]}')).toBeDefined()
  })

  it("lets through what runs nothing new: an empty config, the same hooks with comments or blank lines changed", () => {
    expect(judge(".pre-commit-config.yaml", undefined, "")).toBeUndefined()
    expect(judge(".pre-commit-config.yaml", undefined, "# nothing yet\n\n")).toBeUndefined()
    expect(judge(".pre-commit-config.yaml", preCommitLocal, `# my hooks\n${preCommitLocal}\n\n`)).toBeUndefined()
    expect(judge("lefthook.yml", preCommitLocal, preCommitLocal)).toBeUndefined()
  })

  it("package.json: only the keys hook managers read; scripts and dependencies are honest work", () => {
    const base = { name: "x", version: "1.0.0", scripts: { test: "vitest" }, dependencies: { a: "1" } }
    const text = (o: unknown) => `${JSON.stringify(o, null, 2)}\n`
    expect(judge("package.json", text(base), text({ ...base, scripts: { test: "vitest run", lint: "eslint ." } }))).toBeUndefined()
    expect(judge("package.json", text(base), text({ ...base, dependencies: { a: "2", b: "1" } }))).toBeUndefined()
    expect(judge("package.json", undefined, text(base))).toBeUndefined()
    for (const key of ["lint-staged", "simple-git-hooks", "husky", "pre-commit", "gitHooks", "nano-staged"]) {
      const r = judge("package.json", text(base), text({ ...base, [key]: key === "pre-commit" ? ["test"] : { "*": "touch /tmp/pwned" } }))
      expect(r?.reason, key).toContain(key)
    }
    expect(judge("package.json", text(base), text({ ...base, config: { ghooks: { "pre-commit": "touch /tmp/x" } } }))?.reason).toContain("config.ghooks")
    // A key already there, unchanged, beside a scripts edit.
    const staged = { ...base, "lint-staged": { "*.ts": "eslint --fix" } }
    expect(judge("package.json", text(staged), text({ ...staged, scripts: { test: "x" } }))).toBeUndefined()
    expect(judge("package.json", text(staged), text({ ...staged, "lint-staged": { "*.ts": "touch /tmp/x" } }))).toBeDefined()
    // Unreadable: npm cannot read it either; nothing runs from it.
    expect(judge("package.json", text(base), "{ not json")).toBeUndefined()
  })

  it("property: a package.json edit that leaves the hook keys as they were is never refused; one that adds a command under them always is", () => {
    const keys = ["lint-staged", "simple-git-hooks", "husky", "pre-commit", "gitHooks"] as const
    FastCheck.assert(
      FastCheck.property(
        FastCheck.dictionary(FastCheck.string({ minLength: 1, maxLength: 8 }).filter((k) => !keys.includes(k as never) && k !== "config" && k !== "__proto__"), FastCheck.jsonValue(), { maxKeys: 5 }),
        FastCheck.dictionary(FastCheck.string({ minLength: 1, maxLength: 8 }).filter((k) => !keys.includes(k as never) && k !== "config" && k !== "__proto__"), FastCheck.jsonValue(), { maxKeys: 5 }),
        FastCheck.constantFrom(...keys),
        FastCheck.string({ minLength: 1, maxLength: 20 }),
        (before, after, key, command) => {
          const honest = judge("package.json", JSON.stringify(before), JSON.stringify(after)) === undefined
          const planted = judge("package.json", JSON.stringify(before), JSON.stringify({ ...after, [key]: { "pre-commit": command } })) !== undefined
          return honest && planted
        }
      )
    )
  })
})
