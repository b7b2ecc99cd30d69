/**
 * A one-shot process's single-link question (`protectedIn(root, "single-link")`: read_file, write_file, edit_file of
 * a folder or a file with one link) answered from the stored scan (`ScanStore.unchanged`, `ScanAliases.singleLink`)
 * while no stored folder changed: its answer must be the full scan's for every such path, and any change the host
 * makes since (a protected-name symlink in another folder, a chain's link retargeted, a link removed, a hard link)
 * must send the question to the full scan, which protects what the change made protected.
 *
 * Real files, real scanners; a short settle margin (20 ms), waited out, so the stored folders are trusted.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as ScanStore from "../../../src/adapters/shell/ScanStore.js"
import * as WatchedScan from "../../../src/adapters/shell/WatchedScan.js"
import * as Aliases from "../../../src/domain/jail/Aliases.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

const put = (root: string, rel: string, text = "x\n") => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

const workspace = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-stored-aliases-")))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  put(root, "env/development", "TOKEN=1\n")
  fs.symlinkSync("env/development", path.join(root, ".env"))
  put(root, "dotfiles/ssh/notes")
  fs.symlinkSync("dotfiles/ssh", path.join(root, ".ssh"))
  put(root, "links/b")
  fs.symlinkSync("b", path.join(root, "links/a"))
  // A chain from another folder: cfg/.npmrc -> links/a -> links/b.
  fs.mkdirSync(path.join(root, "cfg"))
  fs.symlinkSync("../links/a", path.join(root, "cfg/.npmrc"))
  for (const f of ["src/x.ts", "src/y.ts", "docs/readme.txt", "deep/a/b/c/d.txt", "node_modules/p/q/index.js"]) put(root, f)
  put(root, "secret/.env.production", "TOKEN=2\n")
  return root
}

const settle = () => new Promise((r) => setTimeout(r, 40))

/** A fresh one-shot scanner (a new process): the store, the short settle margin, no watchers. */
const oneShot = () => WatchedScan.make({ watch: false, store: ScanStore.store, settleMs: 20 })

/** The paths every answer is asked about (real paths under the root). */
const probes = ["src/x.ts", "src/y.ts", "docs/readme.txt", "env/development", "dotfiles/ssh/notes", "dotfiles/ssh", "links/b", "deep/a/b/c/d.txt", "src", "deep/a"]

/** Why each probe is protected in `p` (undefined: it is not), judged as the jail judges it (identity for files). */
const judged = (root: string, p: Aliases.Protected) =>
  Object.fromEntries(
    probes.map((rel) => {
      const real = path.join(root, rel)
      const st = fs.lstatSync(real, { throwIfNoEntry: false })
      return [rel, st === undefined ? "absent" : Aliases.reason(p, root, real, st.isFile() ? st : undefined) ?? "-"]
    })
  )

/** The single-link answer of a fresh process, how it was made, and a full answer to compare (a scanner without the store). */
const ask = async (root: string) => {
  const scanner = oneShot()
  const single = await Effect.runPromise(scanner.protectedIn(root, "single-link"))
  const mode = scanner.lastMode(root)
  const full = await Effect.runPromise(WatchedScan.make({ watch: false }).protectedIn(root))
  return { mode, single: judged(root, single), full: judged(root, full) }
}

/** A store written and settled, and a first fresh process answering from it. */
const stored = async (root: string) => {
  // The first scan's save makes `.minicode/` in the root: the second finds it there, and saves that.
  await Effect.runPromise(oneShot().scan(root))
  await Effect.runPromise(oneShot().scan(root))
  await settle()
  const first = await ask(root)
  expect(first.mode).toBe("stored")
  expect(first.single).toEqual(first.full)
  return first
}

describe("single-link questions from the stored scan", () => {
  it("nothing changed since the store: answered from it, as the full scan answers every folder and single-link file", async () => {
    const root = workspace()
    const { single } = await stored(root)
    // The stored protected symlinks' targets, resolved now: a file, a folder and what is in it, a chain's end.
    expect(single["env/development"]).not.toBe("-")
    expect(single["dotfiles/ssh/notes"]).not.toBe("-")
    expect(single["dotfiles/ssh"]).not.toBe("-")
    expect(single["links/b"]).not.toBe("-")
    // Honest: what nothing names is not protected.
    expect(single["src/x.ts"]).toBe("-")
    expect(single["src"]).toBe("-")
  })

  const changes: ReadonlyArray<readonly [string, (root: string) => void, string]> = [
    ["a protected-name symlink made in another folder", (root) => fs.symlinkSync("../src/x.ts", path.join(root, "docs/.env.local")), "src/x.ts"],
    ["a protected-name symlink to a folder, deep down", (root) => fs.symlinkSync("../../../../src", path.join(root, "deep/a/b/c/.ssh")), "src/y.ts"],
    [
      "a chain's link retargeted (not in the protected link's folder)",
      (root) => {
        fs.unlinkSync(path.join(root, "links/a"))
        fs.symlinkSync("../src/y.ts", path.join(root, "links/a"))
      },
      "src/y.ts"
    ],
    ["a protected-name symlink in an ignored folder", (root) => fs.symlinkSync("../../../docs/readme.txt", path.join(root, "node_modules/p/q/id_rsa")), "docs/readme.txt"]
  ]

  it.each(changes)("%s since the store: the full scan answers, and protects the new target", async (_, change, target) => {
    const root = workspace()
    const before = await stored(root)
    expect(before.single[target]).toBe("-")
    change(root)
    const after = await ask(root)
    expect(after.mode).not.toBe("stored")
    expect(after.single[target]).not.toBe("-")
    expect(after.single).toEqual(after.full)
    // That full scan saved the store: once settled, answered from it again, the new target still protected.
    await settle()
    const again = await ask(root)
    expect(again.mode).toBe("stored")
    expect(again.single[target]).not.toBe("-")
    expect(again.single).toEqual(again.full)
  })

  it("a protected link removed since: its target stays protected (remembered), from the store too", async () => {
    const root = workspace()
    await stored(root)
    fs.unlinkSync(path.join(root, ".env"))
    const after = await ask(root)
    expect(after.mode).not.toBe("stored")
    expect(after.single["env/development"]).not.toBe("-")
    await settle()
    const again = await ask(root)
    expect(again.mode).toBe("stored")
    expect(again.single["env/development"]).not.toBe("-")
  })

  it("a hard link to a secret made since: the full answer names it (the jail asks it for a file with two links)", async () => {
    const root = workspace()
    await stored(root)
    fs.linkSync(path.join(root, "secret/.env.production"), path.join(root, "docs/notes.txt"))
    const st = fs.lstatSync(path.join(root, "docs/notes.txt"))
    expect(st.nlink).toBe(2)
    const full = await Effect.runPromise(oneShot().protectedIn(root, "all"))
    expect(Aliases.reason(full, root, path.join(root, "docs/notes.txt"), st)).toBeDefined()
    // The single-link answer (docs/ listed again: no new hit, no new folder) holds for single-link files only.
    const after = await ask(root)
    expect(after.mode).toBe("stored")
    expect(after.single).toEqual(after.full)
  })

  it("folders whose ctime alone changed (a file made and removed, a file written by rename) are listed again, not a full scan", async () => {
    const root = workspace()
    // The default settle margin (3 s): every folder was made within it, so the store trusts none by its ctime.
    await Effect.runPromise(WatchedScan.make({ watch: false, store: ScanStore.store }).scan(root))
    await Effect.runPromise(WatchedScan.make({ watch: false, store: ScanStore.store }).scan(root))
    fs.writeFileSync(path.join(root, "src/tmp"), "x")
    fs.renameSync(path.join(root, "src/tmp"), path.join(root, "src/z.ts"))
    fs.writeFileSync(path.join(root, "deep/a/gone"), "x")
    fs.unlinkSync(path.join(root, "deep/a/gone"))
    const after = await ask(root)
    expect(after.mode).toBe("stored")
    expect(after.single).toEqual(after.full)
    // A new folder is not what the store holds: the full scan walks it.
    fs.mkdirSync(path.join(root, "src/new"))
    expect((await ask(root)).mode).not.toBe("stored")
  })
})

/**
 * The whole question (`all`: grep, a file with several links) from the store in a one-shot process: the same answer
 * as the full scan while no protected file has another link to find, and the full scan (which finds the link) when
 * one has; what it found is what `known` tells a caller after it.
 */
describe("whole questions from the stored scan", () => {
  const whole = async (root: string) => {
    const scanner = oneShot()
    const all = await Effect.runPromise(scanner.protectedIn(root, "all"))
    const mode = scanner.lastMode(root)
    const known = scanner.known(root)
    const fullScanner = WatchedScan.make({ watch: false })
    const full = await Effect.runPromise(fullScanner.protectedIn(root))
    return { mode, all, known, full, fullHits: fullScanner.known(root)?.hits ?? [] }
  }
  const sorted = (p: Aliases.Protected) => ({ paths: [...p.paths].sort(), inodes: [...p.inodes].sort(), controls: [...(p.controls ?? new Map())].sort() })
  const said = (hits: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly verdict: string }>) => hits.map((h) => `${h.verdict} ${h.kind} ${h.path}`).sort()

  it("nothing changed and no link to search for: answered from the store, as the full scan answers", async () => {
    const root = workspace()
    await stored(root)
    const { mode, all, known, full, fullHits } = await whole(root)
    expect(mode).toBe("stored")
    expect(sorted(all)).toEqual(sorted(full))
    expect(judged(root, all)).toEqual(judged(root, full))
    expect(said(known?.hits ?? [])).toEqual(said(fullHits))
  })

  it("a hard link to a secret (made since the store, or before it): the full scan answers, and names the link", async () => {
    const root = workspace()
    await stored(root)
    fs.linkSync(path.join(root, "secret/.env.production"), path.join(root, "docs/notes.txt"))
    const first = await whole(root)
    expect(first.mode).not.toBe("stored")
    expect(Aliases.reason(first.all, root, path.join(root, "docs/notes.txt"), fs.lstatSync(path.join(root, "docs/notes.txt")))).toBeDefined()
    expect(first.all.paths.has(path.join(root, "docs/notes.txt"))).toBe(true)
    expect(sorted(first.all)).toEqual(sorted(first.full))
    // Saved and settled: the store holds, but the link still has to be searched for: never from the store.
    await settle()
    const again = await whole(root)
    expect(again.mode).not.toBe("stored")
    expect(again.all.paths.has(path.join(root, "docs/notes.txt"))).toBe(true)
    expect(sorted(again.all)).toEqual(sorted(again.full))
  })
})

/**
 * The workspace's git folders (`gitFolders`, what the jail reads nested repositories' tree controls from), from the
 * store in a one-shot process: a repository made since the store (by the host, in any folder) is found, and one
 * store pass answers both gate questions of a command.
 */
describe("git folders from the stored scan", () => {
  it("a nested repository or .git file made since the store is found; unchanged, answered from the store once", async () => {
    const root = workspace()
    await stored(root)
    const scanner = oneShot()
    const before = await Effect.runPromise(scanner.gitFolders(root))
    expect(scanner.lastMode(root)).toBe("stored")
    expect(before.filter((g) => !g.startsWith(path.join(root, ".minicode")))).toEqual([])
    // The alias question of the same command reuses the pass (no scan made: still "stored", no tree kept).
    await Effect.runPromise(scanner.protectedIn(root, "single-link"))
    expect(scanner.lastMode(root)).toBe("stored")
    fs.mkdirSync(path.join(root, "deep/a/b/projA/.git"), { recursive: true })
    fs.writeFileSync(path.join(root, "docs/.git"), "gitdir: ../deep/a/b/projA/.git\n")
    const after = await Effect.runPromise(oneShot().gitFolders(root))
    expect(after).toEqual(expect.arrayContaining([path.join(root, "deep/a/b/projA/.git"), path.join(root, "docs/.git")]))
  })
})
