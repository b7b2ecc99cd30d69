/**
 * The map as text within a character budget, filled as Aider fills its token budget: a binary search for the
 * largest number of top-ranked symbols whose rendering fits, so the budget goes to the most important
 * definitions of the most important files rather than to every line of the first few. Pure.
 */
import type { RankedFile } from "./Rank.js"
import { shownPath } from "../files/ShownPath.js"
import type { Outline, SymbolLine } from "./RepoMap.js"

export const defaultMaxChars = 8000

export interface RenderInput {
  readonly title: string
  /** The files in rank order whose outlines are known, with their outlines. */
  readonly candidates: ReadonlyArray<{ readonly file: RankedFile; readonly outline: Outline }>
  /** Files (with symbols) and symbols in the whole map, for the header and the note. */
  readonly totalFiles: number
  readonly totalSymbols: number
  readonly symbolScore: (path: string, name: string | undefined) => number
  /** The coverage statement, on the header line. */
  readonly coverage: string
  /** Lines after the header (the files left out), counted in the budget. */
  readonly headerNotes?: ReadonlyArray<string>
  readonly focus?: ReadonlyArray<string>
  readonly maxChars?: number
}

interface Pick {
  readonly fileAt: number
  readonly symbol: SymbolLine
  readonly score: number
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`

export const render = (input: RenderInput): { readonly text: string; readonly truncated: boolean; readonly shownFiles: number } => {
  const maxChars = input.maxChars ?? defaultMaxChars
  const focus = input.focus !== undefined && input.focus.length > 0 ? `, focused on ${input.focus.join(", ")}` : ""
  const header = [
    `repo map of ${input.title}: ${plural(input.totalFiles, "file")}, ${plural(input.totalSymbols, "symbol")} (ranked by references and imports${focus}); ${input.coverage}`,
    ...(input.headerNotes ?? [])
  ].join("\n")
  // Every symbol of every candidate, best first: its own rank, then (for symbols nobody mentions) its file's.
  const picks: Array<Pick> = []
  input.candidates.forEach(({ file, outline }, fileAt) => {
    for (const symbol of outline.symbols) picks.push({ fileAt, symbol, score: input.symbolScore(file.path, symbol.name) + file.score * 1e-3 })
  })
  picks.sort((a, b) => b.score - a.score || a.fileAt - b.fileAt || a.symbol.line - b.symbol.line)

  const build = (n: number) => {
    const chosen = new Map<number, Array<SymbolLine>>()
    for (const p of picks.slice(0, n)) {
      const list = chosen.get(p.fileAt)
      if (list === undefined) chosen.set(p.fileAt, [p.symbol])
      else list.push(p.symbol)
    }
    const blocks: Array<string> = []
    let partial = 0
    for (const fileAt of [...chosen.keys()].sort((a, b) => a - b)) {
      const candidate = input.candidates[fileAt]
      const symbols = chosen.get(fileAt) ?? []
      if (candidate === undefined) continue
      const { file, outline } = candidate
      const head = `${shownPath(file.path)}${file.importedBy > 0 ? ` (imported by ${file.importedBy})` : ""}`
      const lines = [...symbols].sort((a, b) => a.line - b.line).map((s) => `  ${s.line}: ${s.text}`)
      const rest = outline.symbols.length - symbols.length
      if (rest > 0) {
        partial += rest
        lines.push(`  [+${rest} more]`)
      }
      blocks.push([head, ...lines].join("\n"))
    }
    return { text: [header, ...blocks].join("\n"), files: chosen.size, partial }
  }
  // The largest n whose map fits: the length grows with n, so a binary search finds it.
  let lo = 0
  let hi = picks.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (build(mid).text.length <= maxChars) lo = mid
    else hi = mid - 1
  }
  const best = build(lo)
  const rest = input.totalFiles - best.files
  const note =
    rest > 0
      ? `[truncated: ${rest} more files; raise max_chars or map a subdirectory]`
      : best.partial > 0
        ? `[truncated: ${best.partial} more symbols in the files shown; raise max_chars]`
        : ""
  return { text: note === "" ? best.text : `${best.text}\n${note}`, truncated: note !== "", shownFiles: best.files }
}
