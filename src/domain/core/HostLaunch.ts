/**
 * A configured server's command line as it starts on the host, outside any sandbox (an MCP stdio server without
 * `--sandbox`, a language server added with `--no-sandbox`, any server where bubblewrap is missing). It starts in the
 * workspace, and a package runner takes the folder it starts in for its project: `npx -y some-mcp-server` runs the
 * workspace's `node_modules/.bin/some-mcp-server` when there is one (and reads the workspace's `.npmrc`), so what
 * the user configured as "the npm package" was whatever a tool call had planted under that name, run with the
 * user's rights (red team, issue 19). `npx` and `npm exec`/`npm x` are given `--prefix /` (before the user's own
 * arguments, so a `--prefix` of theirs still wins): npm's local project is then the root folder, where no repository
 * has a `node_modules` or `.npmrc`, and the server still runs in the workspace. Likewise `python -m some_server` puts
 * the folder it starts in first on its module path (a workspace `some_server.py` shadowed the installed module):
 * it gets `PYTHONSAFEPATH=1` (Python 3.11+). Pure: the caller spawns the result.
 */

/** The local project npm is pointed at: nothing a repository controls is there. */
export const neutralPrefix = "/"

const baseName = (command: string): string => command.slice(command.lastIndexOf("/") + 1)

/** `argv` with the package runners it starts told not to take the workspace for their project. */
export const onHost = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const [command, ...rest] = argv
  if (command === undefined) return argv
  const name = baseName(command)
  if (name === "npx") return [command, "--prefix", neutralPrefix, ...rest]
  const sub = rest[0]
  if (name === "npm" && (sub === "exec" || sub === "x")) return [command, sub, "--prefix", neutralPrefix, ...rest.slice(1)]
  // deno reads the deno.json of the folder it starts in and above (its import map can point a package at a
  // workspace file): `--no-config`, unless the user named a config of their own.
  if (name === "deno" && sub === "run" && !rest.some((a) => a === "-c" || a.startsWith("--config") || a === "--no-config")) return [command, sub, "--no-config", ...rest.slice(1)]
  return argv
}

/**
 * A yarn rc file name no repository has: yarn (berry) reads `.yarnrc.yml` in the folder it starts in and every one
 * above, and its `yarnPath` and `plugins` are JavaScript it runs. Was a hole (red team 8): sandboxed bash wrote
 * `.yarnrc.yml` (a secret's name, but absent when the sandbox started, so nothing masked it) with `yarnPath:
 * tools/y.cjs`; mcp_list started the server configured as `yarn dlx <package>` on the host, which ran tools/y.cjs.
 * The user's own `~/.yarnrc.yml` is not read either by a server yarn starts.
 */
export const ignoredYarnRc = ".minicode-no-yarnrc.yml"

/**
 * The environment of `argv` started on the host: a Python module run (`python -m`) never imports from the workspace
 * (`PYTHONSAFEPATH`); yarn reads no rc file and runs no `yarnPath` (`YARN_RC_FILENAME`, `YARN_IGNORE_PATH`, yarn 1
 * and berry); uv (`uvx`, `uv tool run`) reads no `uv.toml` or `pyproject.toml` (`UV_NO_CONFIG`), whose index
 * settings could name a package in the workspace. A setting the user configured for the server is kept.
 */
export const envOnHost = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const command = argv[0]
  if (command === undefined) return env
  const name = baseName(command)
  const add: Record<string, string> = {}
  if (/^python[0-9.]*$/.test(name) && argv.includes("-m")) add["PYTHONSAFEPATH"] = "1"
  if (name === "yarn" || name === "yarnpkg") Object.assign(add, { YARN_RC_FILENAME: ignoredYarnRc, YARN_IGNORE_PATH: "1" })
  if (name === "uv" || name === "uvx") add["UV_NO_CONFIG"] = "1"
  const missing = Object.entries(add).filter(([k]) => env[k] === undefined)
  return missing.length === 0 ? env : { ...env, ...Object.fromEntries(missing) }
}
