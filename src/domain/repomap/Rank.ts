/**
 * Ranking like Aider's repo map: a graph whose nodes are files and whose edges run from a file to the files that
 * define the identifiers it mentions (and to the files it imports); PageRank over it, optionally personalised
 * toward the files the agent names (`focus`); then each file's rank is shared out over the definitions its edges
 * point at, so a symbol many important files use outranks one nobody mentions. Pure.
 */
import { dirOf, indexFiles, resolveImports } from "./Imports.js"
import type { Scan } from "./RepoMap.js"
import { mentions, ofScan, type Summary, type Words, words as wordTable } from "./Summary.js"

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

/** Aider's weights: a long, specific name says more than a short one; a `_private` one less (`Summary.kindOf`). */
const weightOf = (kind: number, definers: number) => {
  let w = 1
  if ((kind & 1) !== 0) w *= 10
  if ((kind & 2) !== 0) w *= 0.1
  if (definers > 5) w *= 0.1
  return w
}

/** Ranks lexical scans (tests, small trees): their summaries over a words table of their own. */
export const rank = (scans: ReadonlyMap<string, Scan>, focus: ReadonlySet<string> = new Set()): Ranking => {
  const table = wordTable()
  return rankSummaries(new Map([...scans].map(([path, scan]) => [path, ofScan(scan, table)])), table, focus)
}

/** The words that can move rank, each with a slot: its weight and the files defining it (a compressed row). */
interface UsableWords {
  readonly usable: number
  /** Per word id, its slot, or -1. */
  readonly slots: Int32Array
  readonly weight: Float64Array
  /** Per slot, where its row of defining files starts in `defFiles` (one more entry: the end). */
  readonly defAt: Int32Array
  readonly defFiles: Int32Array
}

/**
 * Which words can move rank: defined by 1 to `maxDefiners` files (with more, a mention says nothing of which file it
 * means) and mentioned by a file other than their one definer. One array is sized by all the words (the counts,
 * reused as the slots); everything else by the candidates or the usable words.
 */
const usableWords = (list: ReadonlyArray<Summary>, words: Words): UsableWords => {
  const w = words.size()
  const slots = new Int32Array(w)
  for (const s of list) for (const id of s.defs) slots[id] = (slots[id] ?? 0) + 1
  // Candidates (1 to maxDefiners definers), numbered in id order; `slots` now holds a candidate's number or -1.
  let c = 0
  for (let id = 0; id < w; id++) {
    const count = slots[id] ?? 0
    if (count > 0 && count <= maxDefiners) c++
  }
  const candCount = new Int32Array(c)
  c = 0
  for (let id = 0; id < w; id++) {
    const count = slots[id] ?? 0
    if (count > 0 && count <= maxDefiners) {
      candCount[c] = count
      slots[id] = c++
    } else slots[id] = -1
  }
  // A candidate's one definer (when it has one), then whether a file other than that definer mentions it.
  const sole = new Int32Array(c).fill(-1)
  list.forEach((s, i) => {
    for (const id of s.defs) {
      const k = slots[id] ?? -1
      if (k >= 0) sole[k] = i
    }
  })
  const used = new Int32Array(c).fill(-1)
  list.forEach((s, i) => {
    for (const id of s.refs) {
      const k = slots[id] ?? -1
      if (k >= 0 && ((candCount[k] ?? 0) > 1 || sole[k] !== i)) used[k] = 0
    }
  })
  let usable = 0
  for (let k = 0; k < c; k++) if (used[k] === 0) used[k] = usable++
  const weight = new Float64Array(usable)
  const defAt = new Int32Array(usable + 1)
  for (let id = 0; id < w; id++) {
    const k = slots[id] ?? -1
    if (k < 0) continue
    const s = used[k] ?? -1
    slots[id] = s
    if (s < 0) continue
    const count = candCount[k] ?? 0
    weight[s] = weightOf(words.kind(id), count)
    defAt[s + 1] = count
  }
  for (let s = 0; s < usable; s++) defAt[s + 1] = (defAt[s + 1] ?? 0) + (defAt[s] ?? 0)
  const defFiles = new Int32Array(defAt[usable] ?? 0)
  const fill = defAt.slice(0, usable)
  list.forEach((s, i) => {
    for (const id of s.defs) {
      const k = slots[id] ?? -1
      if (k >= 0) defFiles[(fill[k] = (fill[k] ?? 0) + 1) - 1] = i
    }
  })
  return { usable, slots, weight, defAt, defFiles }
}

/**
 * Ranks the files' summaries. The definitions of each word are a compressed row of file indices. Rank moves per
 * word, not per (mention, definition) pair: every file mentioning a word adds its share once to the word's pool,
 * and a definition earns the pool less its own file's share (the same sums as the file-to-file graph, without
 * building it).
 */
export const rankSummaries = (summaries: ReadonlyMap<string, Summary>, words: Words, focus: ReadonlySet<string> = new Set()): Ranking => {
  const paths = [...summaries.keys()].sort()
  const n = paths.length
  const at = new Map(paths.map((p, i) => [p, i]))
  const list = paths.map((p) => summaries.get(p) as Summary)
  const index = indexFiles(paths)
  // Only the words that can move rank get a slot (`slotOf`): defined by 1 to 12 files and mentioned by a file
  // other than its one definer. Any other word adds exactly 0 to every sum (no other definer to pass rank to, or
  // nobody mentioning it), so the ranking is the same as with a slot per word; a big tree has ~2 million words
  // and a small share of them usable, and every per-word array (weight, pool, rows) was sized by all of them.
  const slotOf = usableWords(list, words)
  const u = slotOf.usable
  const slot = slotOf.slots
  const weight = slotOf.weight
  const definers = slotOf.defAt
  const defFiles = slotOf.defFiles
  const defines = (k: number, i: number) => {
    for (let d = definers[k] ?? 0, end = definers[k + 1] ?? 0; d < end; d++) if (defFiles[d] === i) return true
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
      const k = slot[id] ?? -1
      if (k < 0) continue
      const others = (definers[k + 1] ?? 0) - (definers[k] ?? 0) - (defines(k, i) ? 1 : 0)
      totals[i] = (totals[i] ?? 0) + others * (weight[k] ?? 0)
      for (let d = definers[k] ?? 0, end = definers[k + 1] ?? 0; d < end; d++) {
        const j = defFiles[d] ?? 0
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
    for (const id of summary.refs) if ((slot[id] ?? -1) >= 0) r++
    let d = 0
    for (const id of summary.defs) if ((slot[id] ?? -1) >= 0) d++
    refAt[i + 1] = (refAt[i] ?? 0) + r
    defAt[i + 1] = (defAt[i] ?? 0) + d
  })
  const usedRefs = new Int32Array(refAt[n] ?? 0)
  const usedDefs = new Int32Array(defAt[n] ?? 0)
  const selfMentions = new Uint8Array(defAt[n] ?? 0)
  list.forEach((summary, i) => {
    let r = refAt[i] ?? 0
    for (const id of summary.refs) {
      const k = slot[id] ?? -1
      if (k >= 0) usedRefs[r++] = k
    }
    let d = defAt[i] ?? 0
    for (const id of summary.defs) {
      const k = slot[id] ?? -1
      if (k < 0) continue
      selfMentions[d] = mentions(summary, id) ? 1 : 0
      usedDefs[d++] = k
    }
  })

  // PageRank, personalised: the teleport lands on the focus files nine times in ten when there are any.
  const focused = paths.filter((p) => focus.has(p)).length
  const teleport = Float64Array.from(paths, (p) => (focused === 0 ? 1 / Math.max(1, n) : 0.1 / n + (focus.has(p) ? 0.9 / focused : 0)))
  let pr = Float64Array.from(teleport)
  const out = new Float64Array(n)
  const pool = new Float64Array(u)
  /** Each word's pool: the out-shares (`perFile`) of the files that mention it. */
  const fillPool = (perFile: Float64Array) => {
    pool.fill(0)
    for (let i = 0; i < n; i++) {
      const f = perFile[i] ?? 0
      if (f === 0) continue
      for (let r = refAt[i] ?? 0, end = refAt[i + 1] ?? 0; r < end; r++) {
        const k = usedRefs[r] ?? 0
        pool[k] = (pool[k] ?? 0) + f
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
        const k = usedDefs[d] ?? 0
        gain += (weight[k] ?? 0) * ((pool[k] ?? 0) - (selfMentions[d] === 1 ? own : 0))
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
      const k = id === undefined ? -1 : (slot[id] ?? -1)
      if (id === undefined || k < 0 || i === undefined || summary === undefined) return 0
      if (!defines(k, i)) return 0
      return (weight[k] ?? 0) * ((pool[k] ?? 0) - (mentions(summary, id) ? (share[i] ?? 0) : 0))
    }
  }
}
