/**
 * The command line before @effect/cli parses it: `--debug` taken out (it only changes how failures are told), and
 * global options written before the subcommand (`minicode --json tool …`) moved after it, where the subcommand
 * reads them. Pure: argv in, argv out.
 */

/** Options every command that runs tools accepts; the value-taking ones consume the next word. */
const flagsWithValue = new Set(["--cwd", "--work-mode", "--permission-mode", "--policy", "--sandbox"])
const flags = new Set(["--json", "--allow-local-config"])

export interface Normalised {
  /** node, script, then the words @effect/cli parses. */
  readonly argv: ReadonlyArray<string>
  readonly json: boolean
  readonly debug: boolean
}

export const normalise = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>): Normalised => {
  const [node = "node", script = "minicode", ...words] = argv
  const debug = words.includes("--debug") || env["MINICODE_DEBUG"] === "1"
  const rest = words.filter((w) => w !== "--debug")
  const leading: Array<string> = []
  let i = 0
  while (i < rest.length) {
    const word = rest[i] ?? ""
    const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word
    if (flags.has(word)) {
      leading.push(word)
      i += 1
    } else if (flagsWithValue.has(name)) {
      const takesNext = !word.includes("=") && i + 1 < rest.length
      leading.push(...(takesNext ? [word, rest[i + 1] ?? ""] : [word]))
      i += takesNext ? 2 : 1
    } else break
  }
  const moved = leading.length === 0 || i >= rest.length ? rest : [...rest.slice(i), ...leading]
  const json = moved.includes("--json")
  return { argv: [node, script, ...moved], json, debug }
}
