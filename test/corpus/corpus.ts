/**
 * Loads the guard corpora: `*.txt` holds one command a line (`#` lines are comments), `*.jsonl` one JSON string a
 * line for commands that span lines (heredocs, loops).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url))

const lines = (name: string): ReadonlyArray<string> => {
  try {
    return readFileSync(here(name), "utf8").split("\n")
  } catch {
    return []
  }
}

const parseJsonLine = (line: string): string => {
  const value: unknown = JSON.parse(line)
  if (typeof value !== "string") throw new Error(`corpus line is not a JSON string: ${line}`)
  return value
}

export const load = (family: "honest" | "attacks"): ReadonlyArray<string> => [
  ...lines(`bash-${family}.txt`).filter((l) => l.trim() !== "" && !l.startsWith("#")),
  ...lines(`bash-${family}.jsonl`).filter((l) => l.trim() !== "").map(parseJsonLine)
]
