/**
 * edit_file applies its edit once: on the shipped chain the Journal stage applies it to the bytes it snapshots (and
 * records the result as intended); the file tool writes that result without reading the file again. Without the
 * Journal stage the file tool reads and applies it itself. Either way the file is read once and edited right.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect, Layer, Ref } from "effect"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as Chain from "../../src/kernel/Chain.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { FileSystem } from "../../src/ports/FileSystem.js"
import { Journal } from "../../src/ports/Journal.js"
import { nodeAdapters } from "../support/Adapters.js"
import { recorded, type Log } from "../support/Recording.js"
import { tempDir } from "../support/Workspace.js"

const edit = { tool: "edit_file", args: { path: "a.txt", old_string: "beta", new_string: "gamma" } }

const setup = Effect.gen(function* () {
  const root = tempDir("minicode-editonce-")
  NodeFs.writeFileSync(NodePath.join(root, "a.txt"), "alpha beta\n")
  const log: Log = yield* Ref.make<ReadonlyArray<string>>([])
  const fileSystem = Layer.effect(FileSystem, Effect.map(NodeFileSystem.make, (fs) => recorded(log, "fs", fs)))
  const { journal } = yield* MemoryJournal.make()
  const adapters = nodeAdapters({ fileSystem, journal: Layer.succeed(Journal, journal) })
  const session = { workspace: root, workMode: "BUILD" as const }
  const reads = Effect.map(Ref.get(log), (l) => l.filter((e) => e === "fs.readFile").length)
  return { root, adapters, session, reads, journal }
})

describe("edit_file applies its edit once", () => {
  it.effect("on the shipped chain: one read (the journal's snapshot), the intended content is what is written", () =>
    Effect.gen(function* () {
      const { root, adapters, session, reads, journal } = yield* setup
      const out = yield* Runner.invoke(edit).pipe(Effect.provide(Kernel.layer(session, adapters)))
      assert.include(out.text, "1 replacement")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a.txt"), "utf8"), "alpha gamma\n")
      assert.strictEqual(yield* reads, 1)
      const [record] = yield* journal.list({ session: "cli" })
      assert.strictEqual(record?.state, "committed")
    }))

  it.effect("a failing edit is refused from the journal's outcome, with the same reason, and writes nothing", () =>
    Effect.gen(function* () {
      const { root, adapters, session, reads } = yield* setup
      const failed = yield* Runner.invoke({ tool: "edit_file", args: { path: "a.txt", old_string: "zeta", new_string: "q" } }).pipe(
        Effect.provide(Kernel.layer(session, adapters)),
        Effect.flip
      )
      assert.include(JSON.stringify(failed), "old_string was not found in a.txt")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a.txt"), "utf8"), "alpha beta\n")
      assert.strictEqual(yield* reads, 1)
    }))

  it.effect("write_file over a file with a BOM keeps it: from the journal's plan (no second read), or, without the Journal stage, from the file's first chunk", () =>
    Effect.gen(function* () {
      const { root, adapters, session } = yield* setup
      const file = NodePath.join(root, "bom.txt")
      const write = { tool: "write_file", args: { path: "bom.txt", content: "new\n" } }
      const { log } = yield* Effect.map(Ref.make<ReadonlyArray<string>>([]), (log) => ({ log }))
      const fileSystem = Layer.effect(FileSystem, Effect.map(NodeFileSystem.make, (fs) => recorded(log, "fs", fs)))
      const counted = { ...adapters, fileSystem }
      const reads = Effect.map(Ref.get(log), (l) => l.filter((e) => e === "fs.readFile" || e === "fs.readChunks"))
      NodeFs.writeFileSync(file, "\uFEFFold\n")
      const out = yield* Runner.invoke(write).pipe(Effect.provide(Kernel.layer(session, counted)))
      assert.include(out.text, "byte order mark kept")
      assert.deepStrictEqual([...NodeFs.readFileSync(file)], [0xef, 0xbb, 0xbf, ...Buffer.from("new\n")])
      assert.deepStrictEqual(yield* reads, ["fs.readFile"])
      NodeFs.writeFileSync(file, "\uFEFFold\n")
      yield* Ref.set(log, [])
      const unjournaled = Chain.compose(Chain.stages.filter((s) => s !== Chain.Journal), Kernel.executorOf(counted)).pipe(
        Layer.provide(Kernel.services(session, counted))
      )
      yield* Runner.invoke(write).pipe(Effect.provide(unjournaled))
      assert.deepStrictEqual([...NodeFs.readFileSync(file)], [0xef, 0xbb, 0xbf, ...Buffer.from("new\n")])
      assert.deepStrictEqual(yield* reads, ["fs.readChunks"])
    }))

  it.effect("without the Journal stage: the file tool reads and applies it, once", () =>
    Effect.gen(function* () {
      const { root, adapters, session, reads } = yield* setup
      const unjournaled = Chain.compose(Chain.stages.filter((s) => s !== Chain.Journal), Kernel.executorOf(adapters)).pipe(
        Layer.provide(Kernel.services(session, adapters))
      )
      yield* Runner.invoke(edit).pipe(Effect.provide(unjournaled))
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a.txt"), "utf8"), "alpha gamma\n")
      assert.strictEqual(yield* reads, 1)
    }))
})
