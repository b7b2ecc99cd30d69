/**
 * Ranking like Aider's repo map: a graph whose nodes are files and whose edges run from a file to the files that
 * define the identifiers it mentions (and to the files it imports); PageRank over it, optionally personalised
 * toward the files the agent names (`focus`); then each file's rank is shared out over the definitions its edges
 * point at, so a symbol many important files use outranks one nobody mentions. Pure.
 */
import { dirOf, indexFiles, resolveImports } from "./Imports.js"
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
const maxDefiners = 12
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

interface Definition {
  /** Indices of the files that define the name. */
  readonly files: Array<number>
  readonly weight: number
  /** The rank each of those definitions earned, parallel to `files`. */
  scores: Float64Array | undefined
}

export const rank = (scans: ReadonlyMap<string, Scan>, focus: ReadonlySet<string> = new Set()): Ranking => {
  const paths = [...scans.keys()].sort()
  const n = paths.length
  const at = new Map(paths.map((p, i) => [p, i]))
  const index = indexFiles(paths)
  const definitions = new Map<string, Definition>()
  paths.forEach((path, i) => {
    for (const s of scans.get(path)?.symbols ?? []) {
      if (s.name === undefined || s.name.length < 2) continue
      const d = definitions.get(s.name)
      if (d === undefined) definitions.set(s.name, { files: [i], weight: 0, scores: undefined })
      else if (d.files[d.files.length - 1] !== i) d.files.push(i)
    }
  })
  const usable = new Map<string, Definition>()
  for (const [name, d] of definitions) {
    if (d.files.length <= maxDefiners) usable.set(name, { files: d.files, weight: weightOf(name, d.files.length), scores: new Float64Array(d.files.length) })
  }
  // Edges, aggregated per (from, to) in compressed rows (the iterations walk flat arrays); how many files import
  // and mention each file. Rows are built in order of `from`, so "last counted by" dedupes the counts.
  const acc = new Float64Array(n)
  const touched: Array<number> = []
  const add = (j: number, w: number) => {
    if (acc[j] === 0) touched.push(j)
    acc[j] = (acc[j] ?? 0) + w
  }
  const offsets = new Int32Array(n + 1)
  const rowTargets: Array<number> = []
  const rowWeights: Array<number> = []
  const totals = new Float64Array(n)
  const importedBy = new Int32Array(n)
  const referencedBy = new Int32Array(n)
  const lastImporter = new Int32Array(n).fill(-1)
  const lastReferrer = new Int32Array(n).fill(-1)
  const resolved = new Map<string, ReadonlyArray<number>>()
  paths.forEach((from, i) => {
    const scan = scans.get(from)
    for (const spec of scan?.imports ?? []) {
      // Files of one folder import the same specifiers: resolve each (folder, language, specifier) once (a Rust
      // module's own path matters: `mod x;` in a.rs names a/x.rs).
      const ext = from.slice(from.lastIndexOf("."))
      const key = `${ext === ".rs" ? from : dirOf(from)}\u0000${ext}\u0000${spec}`
      let targets = resolved.get(key)
      if (targets === undefined) {
        targets = resolveImports(from, spec, index).flatMap((t) => at.get(t) ?? [])
        resolved.set(key, targets)
      }
      for (const j of targets) {
        if (j === i) continue
        add(j, 1 / Math.sqrt(targets.length))
        if (lastImporter[j] !== i) {
          lastImporter[j] = i
          importedBy[j] = (importedBy[j] ?? 0) + 1
        }
      }
    }
    const refs = scan?.refs ?? ""
    if (refs !== "") {
      for (const name of refs.split(" ")) {
        const d = usable.get(name)
        if (d === undefined) continue
        for (const j of d.files) {
          if (j === i) continue
          add(j, d.weight)
          if (lastReferrer[j] !== i) {
            lastReferrer[j] = i
            referencedBy[j] = (referencedBy[j] ?? 0) + 1
          }
        }
      }
    }
    for (const j of touched) {
      rowTargets.push(j)
      rowWeights.push(acc[j] ?? 0)
      totals[i] = (totals[i] ?? 0) + (acc[j] ?? 0)
      acc[j] = 0
    }
    touched.length = 0
    offsets[i + 1] = rowTargets.length
  })
  const targets = Int32Array.from(rowTargets)
  const weights = Float64Array.from(rowWeights)

  // PageRank, personalised: the teleport lands on the focus files nine times in ten when there are any.
  const focused = paths.filter((p) => focus.has(p)).length
  const teleport = Float64Array.from(paths, (p) => (focused === 0 ? 1 / Math.max(1, n) : 0.1 / n + (focus.has(p) ? 0.9 / focused : 0)))
  let pr = Float64Array.from(teleport)
  for (let k = 0; k < iterations; k++) {
    const next = new Float64Array(n)
    let dangling = 0
    for (let i = 0; i < n; i++) {
      const share = pr[i] ?? 0
      const total = totals[i] ?? 0
      if (total === 0) {
        dangling += share
        continue
      }
      const f = (damping * share) / total
      for (let k = offsets[i] ?? 0, end = offsets[i + 1] ?? 0; k < end; k++) {
        const j = targets[k] ?? 0
        next[j] = (next[j] ?? 0) + f * (weights[k] ?? 0)
      }
    }
    for (let i = 0; i < n; i++) next[i] = (next[i] ?? 0) + (1 - damping + damping * dangling) * (teleport[i] ?? 0)
    pr = next
  }

  // Each file's rank shared out over the definitions its mentions point at.
  paths.forEach((from, i) => {
    const refs = scans.get(from)?.refs ?? ""
    const total = totals[i] ?? 0
    if (refs === "" || total === 0) return
    const base = (pr[i] ?? 0) / total
    for (const name of refs.split(" ")) {
      const d = usable.get(name)
      if (d === undefined || d.scores === undefined) continue
      d.files.forEach((j, k) => {
        if (j !== i && d.scores !== undefined) d.scores[k] = (d.scores[k] ?? 0) + base * d.weight
      })
    }
  })
  const files = paths
    .map((path, i) => ({ path, importedBy: importedBy[i] ?? 0, referencedBy: referencedBy[i] ?? 0, score: pr[i] ?? 0 }))
    .sort((a, b) => b.score - a.score || b.importedBy - a.importedBy || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    files,
    symbolScore: (path, name) => {
      const d = name === undefined ? undefined : usable.get(name)
      const i = at.get(path)
      if (d === undefined || d.scores === undefined || i === undefined) return 0
      const k = d.files.indexOf(i)
      return k === -1 ? 0 : (d.scores[k] ?? 0)
    }
  }
}
