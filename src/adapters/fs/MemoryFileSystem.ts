/**
 * An in-memory FileSystem with symlinks, hard-link counts and inodes, for contract tests, dry runs and the
 * ordering proofs: it records every effect (content reads and every mutation) in order.
 */
import { Effect, Layer, Option, Ref } from "effect"
import * as P from "../../domain/jail/PosixPath.js"
import { chunksOf, type DirEntry, type Expect, FileSystem, FsError, type FileStat, type ScanSink, type TreeVisit, type TreeWalk, type WriteData } from "../../ports/FileSystem.js"

/** A write's data in one new buffer (chunks are copied as they come: their producer may reuse its buffer). */
const joined = (data: WriteData): Uint8Array => {
  if (data instanceof Uint8Array) return data.slice()
  const parts: Array<Uint8Array> = []
  for (const c of chunksOf(data)) parts.push(c.slice())
  const out = new Uint8Array(parts.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of parts) {
    out.set(c, at)
    at += c.length
  }
  return out
}

type Node =
  | { readonly kind: "file"; readonly content: Uint8Array; readonly mode: number; readonly ino: number }
  | { readonly kind: "directory"; readonly mode: number; readonly ino: number }
  | { readonly kind: "symlink"; readonly target: string; readonly ino: number }

export interface RecordedEffect {
  readonly op: "read" | "write" | "mkdir" | "remove" | "rename" | "chmod"
  readonly path: string
}

export type Seed = Readonly<Record<string, string | { readonly symlink: string } | { readonly dir: true }>>

interface State {
  readonly nodes: ReadonlyMap<string, Node>
  readonly nextIno: number
}

const enc = new TextEncoder()

/** Small, so the fakes exercise the chunked path of a scan (a line split across chunks) on small files. */
export const scanChunk = 4096

const err = (op: string, path: string, code: string, reason: string) => new FsError({ op, path, code, reason })

/** Follows symlinks in every component but (optionally) the last, like the kernel's path walk. */
const walk = (nodes: ReadonlyMap<string, Node>, path: string, followLast: boolean): string | undefined => {
  const queue = [...P.segments(path)]
  let current = "/"
  let hops = 0
  while (queue.length > 0) {
    const seg = queue.shift() ?? ""
    if (seg === "..") {
      current = P.dirname(current)
      continue
    }
    const next = P.join(current, seg)
    const node = nodes.get(next)
    if (node?.kind === "symlink" && (queue.length > 0 || followLast)) {
      if (++hops > 40) return undefined
      if (node.target.startsWith("/")) current = "/"
      queue.unshift(...node.target.split("/").filter((s) => s !== "" && s !== "."))
      continue
    }
    current = next
  }
  return current
}

const nlinkOf = (nodes: ReadonlyMap<string, Node>, ino: number) => {
  let n = 0
  for (const node of nodes.values()) if (node.ino === ino) n++
  return n
}

export const make = (seed: Seed = {}) =>
  Effect.gen(function* () {
    const initial = new Map<string, Node>([["/", { kind: "directory", mode: 0o755, ino: 1 }]])
    let ino = 2
    const ensureDirs = (p: string) => {
      const segs = P.segments(p)
      for (let i = 1; i < segs.length; i++) {
        const d = "/" + segs.slice(0, i).join("/")
        if (!initial.has(d)) initial.set(d, { kind: "directory", mode: 0o755, ino: ino++ })
      }
    }
    for (const [p, v] of Object.entries(seed)) {
      ensureDirs(p)
      if (typeof v === "string") initial.set(p, { kind: "file", content: enc.encode(v), mode: 0o644, ino: ino++ })
      else if ("symlink" in v) initial.set(p, { kind: "symlink", target: v.symlink, ino: ino++ })
      else initial.set(p, { kind: "directory", mode: 0o755, ino: ino++ })
    }
    const state = yield* Ref.make<State>({ nodes: initial, nextIno: ino })
    const log = yield* Ref.make<ReadonlyArray<RecordedEffect>>([])
    const record = (op: RecordedEffect["op"], path: string) => Ref.update(log, (l) => [...l, { op, path }])

    const statOf = (nodes: ReadonlyMap<string, Node>, node: Node): FileStat => ({
      kind: node.kind,
      size: node.kind === "file" ? node.content.byteLength : node.kind === "symlink" ? node.target.length : 4096,
      mode: node.kind === "symlink" ? 0o777 : node.mode,
      nlink: nlinkOf(nodes, node.ino),
      dev: 1,
      ino: node.ino,
      mtimeMs: 0,
      ctimeMs: 0
    })

    const lstat = (p: string) =>
      Ref.get(state).pipe(
        Effect.map(({ nodes }) => {
          const at = walk(nodes, p, false)
          const node = at === undefined ? undefined : nodes.get(at)
          return node === undefined ? Option.none<FileStat>() : Option.some(statOf(nodes, node))
        })
      )

    const readlink = (p: string) =>
      Ref.get(state).pipe(
        Effect.flatMap(({ nodes }) => {
          const at = walk(nodes, p, false)
          const node = at === undefined ? undefined : nodes.get(at)
          return node?.kind === "symlink" ? Effect.succeed(node.target) : Effect.fail(err("readlink", p, "EINVAL", "not a symlink"))
        })
      )

    const checkExpect = (nodes: ReadonlyMap<string, Node>, at: string, expect: Expect | undefined, op: string, p: string) => {
      if (expect === undefined) return undefined
      const node = nodes.get(at)
      const same = expect === "absent" ? node === undefined : node !== undefined && node.ino === expect.ino
      return same ? undefined : err(op, p, "ECHANGED", "the file changed between check and use")
    }

    const readFile = (p: string, expect?: Expect) =>
      Effect.gen(function* () {
        const { nodes } = yield* Ref.get(state)
        const at = walk(nodes, p, false) ?? p
        const node = nodes.get(at)
        if (node === undefined) return yield* err("read", p, "ENOENT", "no such file or directory")
        if (node.kind === "symlink") return yield* err("read", p, "ELOOP", "is a symbolic link (not followed)")
        if (node.kind === "directory") return yield* err("read", p, "EISDIR", "is a directory")
        if (at !== p) return yield* err("read", p, "ECHANGED", "a parent directory changed between check and use")
        const changed = checkExpect(nodes, at, expect, "read", p)
        if (changed !== undefined) return yield* changed
        yield* record("read", p)
        return node.content
      })

    /** As readFile, then the content in chunks of `scanChunk` (so a line split across chunks is exercised). */
    const readChunks = (p: string, sink: (bytes: Uint8Array) => boolean, expect?: Expect) =>
      Effect.map(readFile(p, expect), (content) => {
        for (let at = 0; at < content.byteLength; at += scanChunk) if (!sink(content.slice(at, at + scanChunk))) return
      })

    const parentDir = (nodes: ReadonlyMap<string, Node>, p: string, op: string) => {
      const parent = nodes.get(P.dirname(p))
      return parent?.kind === "directory" ? undefined : err(op, p, "ENOENT", "no such file or directory")
    }

    const writeFile = (p: string, data: WriteData, options: { readonly mode?: number; readonly expect?: Expect } = {}) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        const at = walk(nodes, P.dirname(p), true)
        if (at !== P.dirname(p)) return yield* err("write", p, "ECHANGED", "a parent directory changed between check and use")
        const missing = parentDir(nodes, p, "write")
        if (missing !== undefined) return yield* missing
        const existing = nodes.get(p)
        if (existing?.kind === "directory") return yield* err("write", p, "EISDIR", "is a directory")
        const changed = checkExpect(nodes, p, options.expect, "write", p)
        if (changed !== undefined) return yield* changed
        const mode = options.mode ?? (existing?.kind === "file" ? existing.mode : 0o644)
        const next = new Map(nodes)
        next.set(p, { kind: "file", content: joined(data), mode, ino: nextIno })
        yield* record("write", p)
        yield* Ref.set(state, { nodes: next, nextIno: nextIno + 1 })
      })

    const readDir = (p: string) =>
      Ref.get(state).pipe(
        Effect.flatMap(({ nodes }) => {
          // As the Node adapter: neither the directory nor a parent is reached through a symlink.
          const at = walk(nodes, p, false) ?? p
          const node = nodes.get(at)
          if (node?.kind === "symlink") return Effect.fail(err("list", p, "ELOOP", "is a symbolic link (not followed)"))
          if (node?.kind !== "directory") return Effect.fail(err("list", p, node === undefined ? "ENOENT" : "ENOTDIR", "not a directory"))
          if (at !== p) return Effect.fail(err("list", p, "ECHANGED", "a parent directory changed between check and use"))
          const out: Array<DirEntry> = []
          for (const [k, v] of nodes) if (k !== at && P.dirname(k) === at) out.push({ name: P.basename(k), kind: v.kind })
          return Effect.succeed(out.sort((a, b) => a.name.localeCompare(b.name)))
        })
      )

    /** As the Node adapter: the directory opened as `readDir` opens it, names not followed, chunks of `scanChunk`. */
    const scan = (dir: string, names: ReadonlyArray<string>, sink: ScanSink, skip?: (dev: number, ino: number) => boolean) =>
      Effect.gen(function* () {
        yield* readDir(dir)
        const { nodes } = yield* Ref.get(state)
        let stopped = false
        for (let i = 0; i < names.length && !stopped; i++) {
          const p = P.join(dir, names[i] ?? "")
          const node = nodes.get(p)
          if (node?.kind !== "file" || skip?.(1, node.ino) === true) continue
          yield* record("read", p)
          const bytes = node.content
          if (bytes.byteLength === 0) stopped = sink(i, bytes, true, true) === "stop"
          for (let at = 0; at < bytes.byteLength; at += scanChunk) {
            const verdict = sink(i, bytes.slice(at, at + scanChunk), at === 0, at + scanChunk >= bytes.byteLength)
            stopped = verdict === "stop"
            if (verdict !== true) break
          }
        }
        const unreadable: ReadonlyArray<string> = []
        return unreadable
      })

    const makeDirectory = (p: string) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        const next = new Map(nodes)
        let n = nextIno
        const segs = P.segments(p)
        for (let i = 1; i <= segs.length; i++) {
          const d = "/" + segs.slice(0, i).join("/")
          const node = next.get(d)
          if (node === undefined) next.set(d, { kind: "directory", mode: 0o755, ino: n++ })
          else if (node.kind !== "directory") return yield* err("mkdir", p, "ENOTDIR", "not a directory")
        }
        yield* record("mkdir", p)
        yield* Ref.set(state, { nodes: next, nextIno: n })
      })

    const remove = (p: string, options?: { readonly recursive?: boolean }) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        const node = nodes.get(p)
        if (node === undefined) return yield* err("delete", p, "ENOENT", "no such file or directory")
        const children = [...nodes.keys()].filter((k) => k !== p && P.isInside(p, k))
        if (node.kind === "directory" && options?.recursive !== true) return yield* err("delete", p, "EISDIR", "is a directory")
        const next = new Map(nodes)
        next.delete(p)
        for (const c of children) next.delete(c)
        yield* record("remove", p)
        yield* Ref.set(state, { nodes: next, nextIno })
      })

    const rename = (from: string, to: string) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        if (!nodes.has(from)) return yield* err("move", from, "ENOENT", "no such file or directory")
        const missing = parentDir(nodes, to, "move")
        if (missing !== undefined) return yield* missing
        const next = new Map<string, Node>()
        for (const [k, v] of nodes) {
          if (k === to || P.isInside(to, k)) continue
          next.set(P.isInside(from, k) ? P.join(to, P.relative(from, k)) : k, v)
        }
        yield* record("rename", from)
        yield* Ref.set(state, { nodes: next, nextIno })
      })

    const chmod = (p: string, mode: number) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        const node = nodes.get(p)
        if (node === undefined || node.kind === "symlink") return yield* err("chmod", p, "ENOENT", "no such file")
        const next = new Map(nodes)
        next.set(p, { ...node, mode })
        yield* record("chmod", p)
        yield* Ref.set(state, { nodes: next, nextIno })
      })

    const symlink = (target: string, p: string) =>
      Effect.gen(function* () {
        const { nodes, nextIno } = yield* Ref.get(state)
        if (nodes.has(p)) return yield* err("symlink", p, "EEXIST", "file exists")
        const missing = parentDir(nodes, p, "symlink")
        if (missing !== undefined) return yield* missing
        yield* Ref.set(state, { nodes: new Map(nodes).set(p, { kind: "symlink", target, ino: nextIno }), nextIno: nextIno + 1 })
      })

    /** As the Node adapter: the start opened as `readDir` opens it; a folder that is no longer one is passed over. */
    const walkTree = (start: string) =>
      Effect.map(readDir(start), (): TreeWalk => {
        const stack: Array<string> = [""]
        const step = (folders: number, visit: TreeVisit) =>
          Effect.map(Ref.get(state), ({ nodes }) => {
            for (let n = 0; n < folders && stack.length > 0; n++) {
              const rel = stack.pop() ?? ""
              const at = rel === "" ? start : P.join(start, rel)
              if (nodes.get(at)?.kind !== "directory") continue
              const entries: Array<DirEntry> = []
              for (const [k, v] of nodes) if (k !== at && P.dirname(k) === at) entries.push({ name: P.basename(k), kind: v.kind })
              const read = (name: string) => {
                const node = nodes.get(P.join(at, name))
                return node?.kind === "file" ? node.content.slice() : undefined
              }
              const subs = visit({ rel, entries, read })
              for (let i = subs.length - 1; i >= 0; i--) stack.push(rel === "" ? (subs[i] ?? "") : `${rel}/${subs[i] ?? ""}`)
            }
            return stack.length > 0
          })
        return { step, unreadable: Effect.succeed([]), close: Effect.sync(() => void (stack.length = 0)) }
      })

    const fs = FileSystem.of({ lstat, readlink, readFile, readChunks, writeFile, readDir, walkTree, scan, makeDirectory, remove, rename, chmod, symlink })
    /** Test helpers: the effect log, and a hard link (which the jail must refuse to write through). */
    const link = (existing: string, alias: string) =>
      Ref.update(state, ({ nodes, nextIno }) => {
        const node = nodes.get(existing)
        const next = new Map(nodes)
        if (node !== undefined) next.set(alias, node)
        return { nodes: next, nextIno }
      })
    return { fs, log: Ref.get(log), link }
  })

export const layer = (seed: Seed = {}) => Layer.effect(FileSystem, Effect.map(make(seed), (m) => m.fs))
