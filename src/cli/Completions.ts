/**
 * `minicode --completions bash|zsh|fish`: the completion scripts @effect/cli generates, with one repair to the bash
 * one. Its word loop matches `case "${cmd},${word}"`, where `cmd` is already `minicode__config` after two words, but
 * it labels the deeper cases `minicode,config,mcp)`, so nothing below the second level completed. Each such label
 * is rewritten to the form the loop builds (`minicode__config,mcp)`).
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"

/** The bash script with every nested case label in the form its loop matches. Pure. */
export const repairBash = (lines: ReadonlyArray<string>): ReadonlyArray<string> =>
  lines.map((line) =>
    line.replace(/^(\s*)([A-Za-z0-9_-]+(?:,[A-Za-z0-9_-]+){2,})\)$/, (_all, indent: string, label: string) => {
      const words = label.split(",")
      return `${indent}${words.slice(0, -1).join("__")},${words[words.length - 1] ?? ""})`
    })
  )

export type Shell = "bash" | "zsh" | "fish" | "sh"

/** The shell `--completions SHELL` asks for, when it is the whole command line. */
export const request = (words: ReadonlyArray<string>): Shell | undefined => {
  const [flag, shell, ...rest] = words.length === 1 && words[0]?.startsWith("--completions=") ? ["--completions", words[0].slice(14)] : words
  return flag === "--completions" && rest.length === 0 && (shell === "bash" || shell === "zsh" || shell === "fish" || shell === "sh") ? shell : undefined
}

export const print = <Name extends string, R, E, A>(root: Command.Command<Name, R, E, A>, shell: Shell) =>
  (shell === "zsh" ? Command.getZshCompletions(root, "minicode") : shell === "fish" ? Command.getFishCompletions(root, "minicode") : Command.getBashCompletions(root, "minicode").pipe(Effect.map(repairBash))).pipe(
    Effect.flatMap((lines) => Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`)))
  )
