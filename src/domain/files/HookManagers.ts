/**
 * Files a git-hook manager reads and runs on the host when the user commits or pushes, with no approval tied to
 * their content: pre-commit (`.pre-commit-config.yaml`), lefthook (`lefthook.yml`, `.lefthook.yml`,
 * `lefthook-local.yml`, `.config/lefthook.yml`, json/toml forms, and its script folders `.lefthook/`,
 * `.lefthook-local/`), lint-staged (`.lintstagedrc*`, `lint-staged.config.*`), nano-staged, simple-git-hooks
 * (`.simple-git-hooks.*`, `simple-git-hooks.*`), overcommit (`.overcommit.yml` and its hook folder `.git-hooks/`),
 * commitlint (`.commitlintrc*`, `commitlint.config.*`: loaded as code, or loading a workspace file through `extends`,
 * by the commit-msg hook), husky's folder `.husky/` (before `core.hooksPath` names it, `TreeControls`), and the keys of
 * `package.json` these read (`lint-staged`, `simple-git-hooks`, `husky`, `pre-commit`, `gitHooks`, `config.ghooks`…).
 * At any depth: a nested project or repository has its own. `.pre-commit-hooks.yaml` is not one: it declares hooks
 * for other repositories and runs only on an explicit `pre-commit try-repo`.
 *
 * Was a hole (issue 41): `write_file .pre-commit-config.yaml` adding a `repo: local`, `language: system` hook was
 * accepted, and the user's next `git commit -a` ran it on the host; `lefthook.yml` and `.lintstagedrc` the same.
 *
 * Every entry of a config runs something (a hook, a command, a module loaded as code), so the whole content (blank
 * lines and whole-line `#` comments aside) is one runner: any change to it is refused, writing an empty one is not. In
 * `package.json` only those keys are: a `scripts` or dependency edit is honest work. Pure, as `EditorControls`.
 */
import * as Jsonc from "./Jsonc.js"

export type Kind = "pre-commit" | "lefthook" | "lint-staged" | "simple-git-hooks" | "overcommit" | "commitlint" | "hook-script" | "package-json"

export interface Runner {
  readonly key: string
  readonly value: string
}

const configs: ReadonlyArray<readonly [RegExp, Kind]> = [
  [/^\.pre-commit-config\.ya?ml$/, "pre-commit"],
  [/^\.?lefthook(-local)?\.(ya?ml|jsonc?|toml)$/, "lefthook"],
  [/^(\.lintstagedrc(\.[a-z]+)?|lint-staged\.config\.[a-z]+|\.?nano-staged\.[a-z]+|\.nanostagedrc(\.[a-z]+)?)$/, "lint-staged"],
  [/^\.?simple-git-hooks\.[a-z]+$/, "simple-git-hooks"],
  [/^\.overcommit\.ya?ml$/, "overcommit"],
  [/^(\.commitlintrc(\.[a-z]+)?|commitlint\.config\.[a-z]+)$/, "commitlint"]
]

/** Folders whose every file a hook manager runs as a hook or a hook's script. */
export const scriptFolders: ReadonlySet<string> = new Set([".lefthook", ".lefthook-local", ".husky", ".git-hooks"])

/** What kind of hook-manager control the workspace-relative path is (lower-cased segments), or undefined. */
export const kindOf = (parts: ReadonlyArray<string>): Kind | undefined => {
  const name = parts[parts.length - 1] ?? ""
  if (name === "package.json") return "package-json"
  for (const [re, kind] of configs) if (re.test(name)) return kind
  if (parts.slice(0, -1).some((s) => scriptFolders.has(s))) return "hook-script"
  return undefined
}

/** Whether a file name may be a hook-manager config (cheap, for every entry of a workspace walk). */
export const mayBeConfig = (name: string): boolean => {
  const n = name.toLowerCase()
  return n === "package.json" || configs.some(([re]) => re.test(n))
}

/** Whether an absolute path may lie in a hook-script folder (cheap: its text names one). */
export const mayBeScript = (absolute: string): boolean => /\/\.(lefthook|lefthook-local|husky|git-hooks)\//i.test(absolute)

/** The keys of `package.json` that hook managers read (and `config.ghooks`). */
export const packageKeys: ReadonlyArray<string> = ["lint-staged", "nano-staged", "simple-git-hooks", "husky", "pre-commit", "pre-push", "gitHooks", "ghooks", "commitlint", "lefthook"]

const meaningful = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l !== "" && !/^\s*#/.test(l))
    .join("\n")

/** The entries of `text` read as `kind` that run something (an unreadable package.json runs nothing: npm cannot read it either). */
export const runnersOf = (kind: Kind, text: string): ReadonlyArray<Runner> => {
  if (kind !== "package-json") {
    const body = meaningful(text)
    return body === "" ? [] : [{ key: kind === "hook-script" ? "the hook script" : "the hooks it configures", value: body }]
  }
  const parsed = Jsonc.parse(text)
  if (!parsed.ok) return []
  const root = parsed.value
  return [
    ...packageKeys.flatMap((k) => Jsonc.members(root, k).filter((v) => !Jsonc.isEmpty(v)).map((v) => ({ key: k, value: Jsonc.show(v) }))),
    ...Jsonc.members(root, "config").flatMap((c) => Jsonc.members(c, "ghooks").filter((v) => !Jsonc.isEmpty(v)).map((v) => ({ key: "config.ghooks", value: Jsonc.show(v) })))
  ]
}

export const who: Record<Kind, string> = {
  "pre-commit": "pre-commit runs its hooks on the host at the user's next git commit",
  lefthook: "lefthook runs its commands on the host at the user's next git commit or push",
  "lint-staged": "lint-staged runs its commands (or loads it as code) on the host at the user's next git commit",
  "simple-git-hooks": "simple-git-hooks installs its commands as git hooks, run on the host at the user's next commit",
  overcommit: "overcommit runs its hooks on the host at the user's next git commit",
  commitlint: "commitlint loads it (and what it extends) as code on the host at the user's next git commit",
  "hook-script": "a git-hook manager runs it on the host at the user's next git commit or push",
  "package-json": "a git-hook manager (lint-staged, husky, simple-git-hooks, pre-commit) runs it on the host at the user's next git commit"
}
