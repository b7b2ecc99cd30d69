/**
 * The ranking as it was before the words got slots (`Rank.rankSummaries` up to the usable-words layout): arrays
 * sized by every word of the table. Kept as the oracle the new layout must match exactly (Rank.test.ts).
 */
import { dirOf, indexFiles, resolveImports } from "../../../src/domain/repomap/Imports.js"
import type { Ranking } from "../../../src/domain/repomap/Rank.js"
import { mentions, type Summary, type Words } from "../../../src/domain/repomap/Summary.js"

const maxDefiners = 12
const damping = 0.85
const iterations = 30

const weightOf = (kind: number, definers: number) => {
  let w = 1
  if ((kind & 1) !== 0) w *= 10
  if ((kind & 2) !== 0) w *= 0.1
  if (definers > 5) w *= 0.1
  return w
}

export const rankSummariesBefore = (summaries: ReadonlyMap<string, Summary>, words: Words, focus: ReadonlySet<string> = new Set()): Ranking => {
  const paths = [...summaries.keys()].sort()
  const n = paths.length
  const at = new Map(paths.map((p, i) => [p, i]))
  const list = paths.map((p) => summaries.get(p) as Summary)
  const index = indexFiles(paths)
  const w = words.size()
  // Definitions per word (compressed rows), and which words are specific enough to say which file a mention means.
  const definers = new Int32Array(w + 1)
  for (const s of list) for (const id of s.defs) definers[id + 1] = (definers[id + 1] ?? 0) + 1
  const usable = new Uint8Array(w)
  const weight = new Float64Array(w)
  for (let id = 0; id < w; id++) {
    const count = definers[id + 1] ?? 0
    if (count > 0 && count <= maxDefiners) {
      usable[id] = 1
      weight[id] = weightOf(words.kind(id), count)
    }
  }
  for (let id = 0; id < w; id++) definers[id + 1] = (definers[id + 1] ?? 0) + (definers[id] ?? 0)
  const defFiles = new Int32Array(definers[w] ?? 0)
  const fill = definers.slice(0, w)
  list.forEach((s, i) => {
    for (const id of s.defs) defFiles[(fill[id] = (fill[id] ?? 0) + 1) - 1] = i
  })
  const defines = (id: number, i: number) => {
    for (let k = definers[id] ?? 0, end = definers[id + 1] ?? 0; k < end; k++) if (defFiles[k] === i) return true
    return false
  }
  // Mentions are not expanded into file-to-file edges (a mention of a word with 12 definitions would be 12 edges):
  // rank flows from a file to the words it mentions and on to their definitions. Import edges are few and kept as
  // rows. A file's out-weight counts each mention once per other file defining the word.
  const totals = new Float64Array(n)
  const importedBy = new Int32Array(n)
  const referencedBy = new Int32Array(n)
  const lastImporter = new Int32Array(n).fill(-1)
  const lastReferrer = new Int32Array(n).fill(-1)
  const importOffsets = new Int32Array(n + 1)
  const importTargets: Array<number> = []
  const importWeights: Array<number> = []
  const resolved = new Map<string, ReadonlyArray<number>>()
  list.forEach((summary, i) => {
    const from = paths[i] ?? ""
    for (const spec of summary.imports) {
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
        const x = 1 / Math.sqrt(targets.length)
        importTargets.push(j)
        importWeights.push(x)
        totals[i] = (totals[i] ?? 0) + x
        if (lastImporter[j] !== i) {
          lastImporter[j] = i
          importedBy[j] = (importedBy[j] ?? 0) + 1
        }
      }
    }
    importOffsets[i + 1] = importTargets.length
    for (const id of summary.refs) {
      if (usable[id] !== 1) continue
      const others = (definers[id + 1] ?? 0) - (definers[id] ?? 0) - (defines(id, i) ? 1 : 0)
      totals[i] = (totals[i] ?? 0) + others * (weight[id] ?? 0)
      for (let k = definers[id] ?? 0, end = definers[id + 1] ?? 0; k < end; k++) {
        const j = defFiles[k] ?? 0
        if (j !== i && lastReferrer[j] !== i) {
          lastReferrer[j] = i
          referencedBy[j] = (referencedBy[j] ?? 0) + 1
        }
      }
    }
  })
  // Per file, the usable words it mentions and defines, and which of those it defines it also mentions (its own
  // share is not passed to itself): what the iterations walk.
  // Compressed rows, one array each (not a typed array per file).
  const refAt = new Int32Array(n + 1)
  const defAt = new Int32Array(n + 1)
  list.forEach((summary, i) => {
    let r = 0
    for (const id of summary.refs) if (usable[id] === 1) r++
    let d = 0
    for (const id of summary.defs) if (usable[id] === 1) d++
    refAt[i + 1] = (refAt[i] ?? 0) + r
    defAt[i + 1] = (defAt[i] ?? 0) + d
  })
  const usedRefs = new Int32Array(refAt[n] ?? 0)
  const usedDefs = new Int32Array(defAt[n] ?? 0)
  const selfMentions = new Uint8Array(defAt[n] ?? 0)
  list.forEach((summary, i) => {
    let r = refAt[i] ?? 0
    for (const id of summary.refs) if (usable[id] === 1) usedRefs[r++] = id
    let d = defAt[i] ?? 0
    for (const id of summary.defs) {
      if (usable[id] !== 1) continue
      selfMentions[d] = mentions(summary, id) ? 1 : 0
      usedDefs[d++] = id
    }
  })

  // PageRank, personalised: the teleport lands on the focus files nine times in ten when there are any.
  const focused = paths.filter((p) => focus.has(p)).length
  const teleport = Float64Array.from(paths, (p) => (focused === 0 ? 1 / Math.max(1, n) : 0.1 / n + (focus.has(p) ? 0.9 / focused : 0)))
  let pr = Float64Array.from(teleport)
  const out = new Float64Array(n)
  const pool = new Float64Array(w)
  /** Each word's pool: the out-shares (`perFile`) of the files that mention it. */
  const fillPool = (perFile: Float64Array) => {
    pool.fill(0)
    for (let i = 0; i < n; i++) {
      const f = perFile[i] ?? 0
      if (f === 0) continue
      for (let r = refAt[i] ?? 0, end = refAt[i + 1] ?? 0; r < end; r++) {
        const id = usedRefs[r] ?? 0
        pool[id] = (pool[id] ?? 0) + f
      }
    }
  }
  // Two rank vectors, swapped after each pass (not a new one per pass: 30 of them on a big tree).
  let next = new Float64Array(n)
  for (let k = 0; k < iterations; k++) {
    next.fill(0)
    let dangling = 0
    for (let i = 0; i < n; i++) {
      const total = totals[i] ?? 0
      out[i] = total === 0 ? 0 : (damping * (pr[i] ?? 0)) / total
      if (total === 0) dangling += pr[i] ?? 0
    }
    fillPool(out)
    for (let j = 0; j < n; j++) {
      const own = out[j] ?? 0
      let gain = 0
      for (let d = defAt[j] ?? 0, end = defAt[j + 1] ?? 0; d < end; d++) {
        const id = usedDefs[d] ?? 0
        gain += (weight[id] ?? 0) * ((pool[id] ?? 0) - (selfMentions[d] === 1 ? own : 0))
      }
      next[j] = (next[j] ?? 0) + gain
    }
    for (let i = 0; i < n; i++) {
      const f = out[i] ?? 0
      for (let e = importOffsets[i] ?? 0, end = importOffsets[i + 1] ?? 0; e < end; e++) {
        const j = importTargets[e] ?? 0
        next[j] = (next[j] ?? 0) + f * (importWeights[e] ?? 0)
      }
    }
    for (let i = 0; i < n; i++) next[i] = (next[i] ?? 0) + (1 - damping + damping * dangling) * (teleport[i] ?? 0)
    ;[pr, next] = [next, pr]
  }

  // Each file's rank shared out over the definitions its mentions point at: a word's pool holds the shares of
  // every file that mentions it; a definition earns the pool less the share of its own file.
  const share = Float64Array.from(paths, (_, i) => ((totals[i] ?? 0) === 0 ? 0 : (pr[i] ?? 0) / (totals[i] ?? 1)))
  fillPool(share)
  const files = paths
    .map((path, i) => ({ path, importedBy: importedBy[i] ?? 0, referencedBy: referencedBy[i] ?? 0, score: pr[i] ?? 0 }))
    .sort((a, b) => b.score - a.score || b.importedBy - a.importedBy || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    files,
    symbolScore: (path, name) => {
      const id = name === undefined ? undefined : words.lookup(name)
      const i = at.get(path)
      const summary = i === undefined ? undefined : list[i]
      if (id === undefined || usable[id] !== 1 || i === undefined || summary === undefined) return 0
      if (!defines(id, i)) return 0
      return (weight[id] ?? 0) * ((pool[id] ?? 0) - (mentions(summary, id) ? (share[i] ?? 0) : 0))
    }
  }
}
