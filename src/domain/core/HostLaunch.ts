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
  return argv
}

/** The environment of `argv` started on the host: a Python module run (`python -m`) never imports from the workspace. */
export const envOnHost = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const command = argv[0]
  const python = command !== undefined && /^python[0-9.]*$/.test(baseName(command)) && argv.includes("-m")
  return python && env["PYTHONSAFEPATH"] === undefined ? { ...env, PYTHONSAFEPATH: "1" } : env
}
