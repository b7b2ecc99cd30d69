/**
 * Ranking like Aider's repo map: a graph whose nodes are files and whose edges run from a file to the files that
 * define the identifiers it mentions (and to the files it imports); PageRank over it, optionally personalised
 * toward the files the agent names (`focus`); then each file's rank is shared out over the definitions its edges
 * point at, so a symbol many important files use outranks one nobody mentions. Pure.
 */
import { indexFiles, resolveImports } from "./Imports.js"
import type { Scan } from "./RepoMap.js"

export interface RankedFile {
  readonly path: string
  /** How many other files import it. */
  readonly importedBy: number
  /** How many other files mention a name it defines. */
  readonly referencedBy: number
  readonly score: number
}

export interface Ranking {
  /** Every file, most important first. */
  readonly files: ReadonlyArray<RankedFile>
  /** The rank a file's definition of `name` earned from the files that mention it (0 when none does). */
  readonly symbolScore: (path: string, name: string | undefined) => number
}

/** A name defined in more files than this is too generic to say which one a mention means. */
const maxDefiners = 20
const damping = 0.85
const iterations = 30

/** Aider's weights: a long, specific name says more than a short one; a `_private` one less. */
const weightOf = (name: string, definers: number) => {
  let w = 1
  if (name.length >= 8 && (/[a-z][A-Z]/.test(name) || name.includes("_"))) w *= 10
  if (name.startsWith("_")) w *= 0.1
  if (definers > 5) w *= 0.1
  return w
}

export const rank = (scans: ReadonlyMap<string, Scan>, focus: ReadonlySet<string> = new Set()): Ranking => {
  const paths = [...scans.keys()].sort()
  const index = indexFiles(paths)
  const definers = new Map<string, Array<string>>()
  for (const [path, scan] of scans) {
    for (const s of scan.symbols) {
      if (s.name === undefined || s.name.length < 2) continue
      const list = definers.get(s.name)
      if (list === undefined) definers.set(s.name, [path])
      else if (list[list.length - 1] !== path) list.push(path)
    }
  }
  // Edges: from → (to → weight); and the named share of each edge, for the symbols' ranks.
  const out = new Map<string, Map<string, number>>()
  const named = new Map<string, Array<{ readonly to: string; readonly name: string; readonly w: number }>>()
  const importers = new Map<string, Set<string>>()
  const referrers = new Map<string, Set<string>>()
  const addEdge = (from: string, to: string, w: number) => {
    let edges = out.get(from)
    if (edges === undefined) out.set(from, (edges = new Map()))
    edges.set(to, (edges.get(to) ?? 0) + w)
  }
  const note = (map: Map<string, Set<string>>, to: string, from: string) => {
    const set = map.get(to)
    if (set === undefined) map.set(to, new Set([from]))
    else set.add(from)
  }
  for (const [from, scan] of scans) {
    for (const spec of scan.imports) {
      const targets = resolveImports(from, spec, index).filter((t) => t !== from)
      for (const to of targets) {
        addEdge(from, to, 1 / Math.sqrt(targets.length))
        note(importers, to, from)
      }
    }
    if (scan.refs === "") continue
    const shares: Array<{ readonly to: string; readonly name: string; readonly w: number }> = []
    for (const name of scan.refs.split(" ")) {
      const defs = definers.get(name)
      if (defs === undefined || defs.length > maxDefiners) continue
      const w = weightOf(name, defs.length)
      for (const to of defs) {
        if (to === from) continue
        addEdge(from, to, w)
        shares.push({ to, name, w })
        note(referrers, to, from)
      }
    }
    if (shares.length > 0) named.set(from, shares)
  }

  // PageRank, personalised: the teleport lands on the focus files nine times in ten when there are any.
  const n = paths.length
  const uniform = 1 / Math.max(1, n)
  const focused = paths.filter((p) => focus.has(p))
  const teleport = (p: string) => (focused.length === 0 ? uniform : 0.1 * uniform + (focus.has(p) ? 0.9 / focused.length : 0))
  const totals = new Map([...out].map(([from, edges]) => [from, [...edges.values()].reduce((a, b) => a + b, 0)]))
  let pr = new Map(paths.map((p) => [p, teleport(p)]))
  for (let i = 0; i < iterations; i++) {
    const next = new Map<string, number>()
    let dangling = 0
    for (const p of paths) {
      const share = pr.get(p) ?? 0
      const edges = out.get(p)
      const total = totals.get(p) ?? 0
      if (edges === undefined || total === 0) {
        dangling += share
        continue
      }
      for (const [to, w] of edges) next.set(to, (next.get(to) ?? 0) + (damping * share * w) / total)
    }
    for (const p of paths) next.set(p, (next.get(p) ?? 0) + (1 - damping + damping * dangling) * teleport(p))
    pr = next
  }

  const symbolRanks = new Map<string, number>()
  for (const [from, shares] of named) {
    const base = pr.get(from) ?? 0
    const total = totals.get(from) ?? 1
    for (const { to, name, w } of shares) {
      const key = `${to}\u0000${name}`
      symbolRanks.set(key, (symbolRanks.get(key) ?? 0) + (base * w) / total)
    }
  }
  const files = paths
    .map((path) => ({
      path,
      importedBy: importers.get(path)?.size ?? 0,
      referencedBy: referrers.get(path)?.size ?? 0,
      score: pr.get(path) ?? 0
    }))
    .sort((a, b) => b.score - a.score || b.importedBy - a.importedBy || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    files,
    symbolScore: (path, name) => (name === undefined ? 0 : (symbolRanks.get(`${path}\u0000${name}`) ?? 0))
  }
}
