/**
 * One suite for every Journal (+ Checkpoints) adapter: the fake is proven faithful by passing what SQLite passes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect, Layer, Option } from "effect"
import * as Undo from "../../src/tools/UndoTool.js"
import { Checkpoints } from "../../src/ports/Checkpoints.js"
import { type Intent, Journal, type JournalError } from "../../src/ports/Journal.js"
import { chainWrite } from "../support/ChainWrite.js"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import { encode, tempDir, tree, write } from "../support/Workspace.js"

export type MakeLayer = (options: { readonly retentionTurns?: number }) => Layer.Layer<Journal | Checkpoints, JournalError>

const intent = (over: Partial<Intent> = {}): Intent => ({
  session: "s1",
  turn: 1,
  tool: "write_file",
  capability: "write",
  paths: ["a.txt"],
  canonicalArgs: JSON.stringify({ path: "a.txt", content: "secret-token-123" }),
  remote: false,
  ...over
})

export const journalContract = (name: string, makeLayer: MakeLayer) =>
  describe(`Journal contract: ${name}`, () => {
    const provide = <A, E, R>(effect: Effect.Effect<A, E, R>, retentionTurns?: number) =>
      effect.pipe(
        Effect.provide(Layer.merge(makeLayer(retentionTurns === undefined ? {} : { retentionTurns }), NodeFileSystem.layer))
      )

    it.live("begin writes pending, complete a terminal state, seqs increase", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const a = yield* journal.begin(intent(), [])
        const b = yield* journal.begin(intent({ paths: ["b.txt"] }), [])
        assert.strictEqual(a.state, "pending")
        assert.isTrue(b.seq > a.seq)
        assert.strictEqual(a.argsHash.length, 64)
        assert.notInclude(a.argsHash, "secret")
        yield* journal.complete(a.id, "committed", "ok")
        yield* journal.complete(b.id, "failed")
        const all = yield* journal.list()
        assert.deepStrictEqual(all.map((r) => [r.seq, r.state, r.note]), [[a.seq, "committed", "ok"], [b.seq, "failed", null]])
        assert.deepStrictEqual((yield* journal.list({ state: "failed" })).map((r) => r.id), [b.id])
      })))

    it.live("complete is idempotent for the same state and refuses another", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const a = yield* journal.begin(intent(), [])
        yield* journal.complete(a.id, "committed")
        yield* journal.complete(a.id, "committed")
        const again = yield* journal.complete(a.id, "failed").pipe(Effect.flip)
        assert.strictEqual(again._tag, "JournalError")
        const missing = yield* journal.complete("nope", "failed").pipe(Effect.flip)
        assert.include(missing.reason, "no record")
      })))

    it.live("findByRequest finds the newest record of a request id in a session", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        yield* journal.begin(intent({ requestId: "r1" }), [])
        const second = yield* journal.begin(intent({ requestId: "r1" }), [])
        assert.strictEqual(Option.getOrThrow(yield* journal.findByRequest("s1", "r1")).id, second.id)
        assert.isTrue(Option.isNone(yield* journal.findByRequest("s2", "r1")))
      })))

    it.live("answered marks every record of a request in a session, and only those; a record starts unanswered", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const first = yield* journal.begin(intent({ requestId: "r1" }), [])
        const second = yield* journal.begin(intent({ requestId: "r1", turn: 2 }), [])
        const other = yield* journal.begin(intent({ requestId: "r2" }), [])
        const elsewhere = yield* journal.begin(intent({ requestId: "r1", session: "s2" }), [])
        const none = yield* journal.begin(intent(), [])
        assert.isFalse(first.answered)
        yield* journal.complete(second.id, "committed")
        yield* journal.answered("s1", "r1")
        yield* journal.answered("s1", "r1")
        yield* journal.answered("s1", "no-such-request")
        const byId = new Map((yield* journal.list()).map((r) => [r.id, r.answered]))
        assert.deepStrictEqual([first, second, other, elsewhere, none].map((r) => byId.get(r.id)), [true, true, false, false, false])
        const found = Option.getOrThrow(yield* journal.findByRequest("s1", "r1"))
        assert.deepStrictEqual([found.id, found.answered, found.state], [second.id, true, "committed"])
        // Marking changes nothing recovery judges (and breaks no checksum): the committed record is still done.
        const plan = yield* journal.recover
        assert.strictEqual(plan.items.find((i) => i.seq === second.seq)?.classification, "done")
        assert.strictEqual(plan.items.length, 5)
      })))

    it.live("lastFinalizedTurn is a session's highest finalised turn, 0 for none", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        assert.strictEqual(yield* journal.lastFinalizedTurn("s1"), 0)
        for (const turn of [2, 5, 3]) yield* journal.begin(intent({ turn }), [])
        assert.strictEqual(yield* journal.lastFinalizedTurn("s1"), 0)
        yield* journal.finalizeTurn("s1", 3)
        yield* journal.finalizeTurn("s1", 2)
        yield* journal.begin(intent({ session: "s2", turn: 9 }), [])
        yield* journal.finalizeTurn("s2", 9)
        assert.strictEqual(yield* journal.lastFinalizedTurn("s1"), 3)
        assert.strictEqual(yield* journal.lastTurn("s1"), 5)
        assert.strictEqual(yield* journal.lastFinalizedTurn("s2"), 9)
      })))

    it.live("lastTurn is a session's highest turn, 0 for none, and survives retention", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        assert.strictEqual(yield* journal.lastTurn("s1"), 0)
        for (const turn of [3, 1, 7, 2]) {
          yield* journal.begin(intent({ turn }), [])
          yield* journal.finalizeTurn("s1", turn)
        }
        yield* journal.begin(intent({ session: "s2", turn: 40 }), [])
        assert.strictEqual(yield* journal.lastTurn("s1"), 7)
        assert.strictEqual(yield* journal.lastTurn("s2"), 40)
        assert.strictEqual(yield* journal.lastTurn("s3"), 0)
      }), 2))

    it.live("recover classifies unfinalised records and ignores finalised turns", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const done = yield* journal.begin(intent({ turn: 2 }), [])
        yield* journal.complete(done.id, "committed")
        yield* journal.begin(intent({ turn: 2, paths: ["p.txt"] }), [])
        const unknown = yield* journal.begin(intent({ turn: 2 }), [])
        yield* journal.complete(unknown.id, "unknown", "timed out")
        const failed = yield* journal.begin(intent({ turn: 2 }), [])
        yield* journal.complete(failed.id, "failed")
        const remote = yield* journal.begin(intent({ turn: 2, tool: "mcp_call", capability: "external", paths: [], remote: true }), [])
        yield* journal.complete(remote.id, "committed")
        const old = yield* journal.begin(intent({ turn: 1 }), [])
        yield* journal.finalizeTurn("s1", 1)
        const plan = yield* journal.recover
        assert.deepStrictEqual(plan.items.map((i) => i.classification), ["done", "verify", "verify", "failed", "read-back"])
        assert.deepStrictEqual(plan.items[1]?.paths, ["p.txt"])
        assert.isFalse(plan.items.some((i) => i.seq === old.seq))
        assert.isFalse(plan.clean)
      })))

    it.live("resolve is journaled and turns verify into done or failed", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const a = yield* journal.begin(intent(), [])
        const b = yield* journal.begin(intent(), [])
        const resolution = yield* journal.resolve(a.seq, "applied", "alice")
        assert.strictEqual(resolution.tool, "recover.resolve")
        assert.strictEqual(resolution.state, "committed")
        yield* journal.resolve(b.seq, "absent")
        const plan = yield* journal.recover
        assert.deepStrictEqual(plan.items.map((i) => [i.seq, i.classification]), [[a.seq, "done"], [b.seq, "failed"]])
        const listed = yield* journal.list()
        assert.isTrue(listed.some((r) => r.tool === "recover.resolve" && r.note === `#${a.seq} resolved applied by alice`))
        const c = yield* journal.begin(intent(), [])
        yield* journal.complete(c.id, "committed")
        assert.strictEqual((yield* journal.resolve(c.seq, "absent").pipe(Effect.flip))._tag, "JournalError")
      })))

    it.live("checkpoints keep content-addressed before and intended after images", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const checkpoints = yield* Checkpoints
        const r = yield* journal.begin(
          intent(),
          [{ path: "a.txt", content: encode("old"), mode: 0o600 }],
          [{ path: "a.txt", content: encode("new"), mode: 0o600 }]
        )
        yield* journal.begin(intent({ paths: ["b.txt"] }), [{ path: "b.txt", content: null, mode: null }])
        const changes = yield* checkpoints.changes("s1", 1)
        assert.strictEqual(changes.length, 2)
        const first = changes[0]
        assert.strictEqual(first?.seq, r.seq)
        assert.deepStrictEqual(first?.before, { hash: checkpoints.address(encode("old")), mode: 0o600 })
        assert.deepStrictEqual(first?.after, { hash: checkpoints.address(encode("new")), mode: 0o600 })
        assert.deepStrictEqual(changes[1]?.before, { hash: null, mode: null })
        assert.isNull(changes[1]?.after ?? null)
        const blob = yield* checkpoints.blob(checkpoints.address(encode("old")))
        assert.strictEqual(new TextDecoder().decode(Option.getOrThrow(blob)), "old")
        const list = yield* checkpoints.list
        assert.deepStrictEqual(list.map((c) => [c.session, c.turn, c.status, [...c.paths].sort()]), [["s1", 1, "applied", ["a.txt", "b.txt"]]])
      })))

    it.live("retention keeps the last N turns and never an unfinalised one", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const checkpoints = yield* Checkpoints
        const open = yield* journal.begin(intent({ turn: 0 }), [{ path: "a.txt", content: encode("zero"), mode: 0o644 }])
        for (let turn = 1; turn <= 5; turn++) {
          yield* journal.begin(intent({ turn }), [{ path: "a.txt", content: encode(`v${turn}`), mode: 0o644 }])
          yield* journal.finalizeTurn("s1", turn)
        }
        const turns = (yield* checkpoints.list).map((c) => c.turn)
        assert.deepStrictEqual(turns.filter((t) => t !== 0), [5, 4])
        assert.isTrue((yield* journal.list()).some((r) => r.id === open.id))
        assert.isTrue(Option.isNone(yield* checkpoints.blob(checkpoints.address(encode("v1")))))
        assert.isTrue(Option.isSome(yield* checkpoints.blob(checkpoints.address(encode("zero")))))
      }), 2))

    it.live("undo restores a turn exactly, redo re-applies it, both journaled", () => {
      const root = tempDir()
      write(root, "keep.txt", "kept")
      write(root, "mod.txt", "original", 0o640)
      write(root, "del.txt", "to be deleted", 0o600)
      const initial = tree(root)
      return provide(Effect.gen(function* () {
        const journal = yield* Journal
        yield* chainWrite({ root, session: "s1", turn: 1, path: "mod.txt", content: "changed" })
        yield* chainWrite({ root, session: "s1", turn: 1, path: "mod.txt", content: "changed twice" })
        yield* chainWrite({ root, session: "s1", turn: 1, path: "dir/new.txt", content: "created" })
        // A delete, journaled as the chain would.
        const del = yield* journal.begin(
          intent({ tool: "delete_file", paths: ["del.txt"] }),
          [{ path: "del.txt", content: NodeFs.readFileSync(NodePath.join(root, "del.txt")), mode: NodeFs.statSync(NodePath.join(root, "del.txt")).mode & 0o7777 }],
          [{ path: "del.txt", content: null, mode: null }]
        )
        NodeFs.rmSync(NodePath.join(root, "del.txt"))
        yield* journal.complete(del.id, "committed")
        yield* journal.finalizeTurn("s1", 1)
        const after = tree(root)

        const undone = yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual([...undone.restored].sort(), ["del.txt", "dir/new.txt", "mod.txt"])
        assert.deepStrictEqual(tree(root), initial)
        assert.strictEqual((yield* Undo.checkpoints)[0]?.status, "undone")
        const again = yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual(again.restored, [])
        assert.strictEqual(again.skipped.length, 3)

        const redone = yield* Undo.redo({ root, session: "s1", turn: 1 })
        assert.strictEqual(redone.restored.length, 3)
        assert.deepStrictEqual(tree(root), after)
        assert.strictEqual((yield* Undo.checkpoints)[0]?.status, "applied")
        const records = yield* journal.list()
        // Each run journaled, and each file it restored as a mutation of its own (pending before, committed after).
        assert.deepStrictEqual(records.filter((r) => r.restores !== null).map((r) => [r.tool, r.paths.join(" "), r.state, r.finalized]), [
          ["undo", "del.txt dir/new.txt mod.txt", "committed", true],
          ["undo.file", "del.txt", "committed", true],
          ["undo.file", "dir/new.txt", "committed", true],
          ["undo.file", "mod.txt", "committed", true],
          ["undo", "", "committed", true],
          ["redo", "del.txt dir/new.txt mod.txt", "committed", true],
          ["redo.file", "del.txt", "committed", true],
          ["redo.file", "dir/new.txt", "committed", true],
          ["redo.file", "mod.txt", "committed", true]
        ])
        assert.isTrue((yield* journal.recover).clean)
      }))
    })

    it.live("an undo stopped part-way leaves a record per file restored and one for the file it was on; finished, all is settled", () => {
      const root = tempDir()
      for (const n of [1, 2, 3, 4]) write(root, `f${n}.txt`, `before ${n}`)
      const initial = tree(root)
      return provide(Effect.gen(function* () {
        const journal = yield* Journal
        for (const n of [1, 2, 3, 4]) yield* chainWrite({ root, session: "s1", turn: 1, path: `f${n}.txt`, content: `after ${n}` })
        yield* journal.finalizeTurn("s1", 1)
        const after = tree(root)
        // Steps: 1 the run's intent; per file 3 (intent, write, record). Stopped after f2's write (step 6), before its record.
        const stopped = yield* Effect.exit(Undo.undo({ root, session: "s1", turn: 1, afterStep: (n) => (n === 6 ? Effect.interrupt : Effect.void) }))
        assert.isTrue(stopped._tag === "Failure")
        assert.deepStrictEqual(Object.keys(tree(root)).filter((p) => tree(root)[p] === initial[p]).sort(), ["f1.txt", "f2.txt"])
        const open = (yield* journal.recover).items.filter((i) => i.classification !== "done").map((i) => [i.tool, i.paths.join(" "), i.state])
        assert.deepStrictEqual(open, [["undo", "f1.txt f2.txt f3.txt f4.txt", "unknown"], ["undo.file", "f2.txt", "pending"]])
        const done = (yield* journal.recover).items.filter((i) => i.classification === "done").map((i) => [i.tool, i.paths.join(" ")])
        assert.deepStrictEqual(done, [["undo.file", "f1.txt"]])
        assert.strictEqual((yield* Undo.checkpoints)[0]?.status, "undoing")
        // Taken back by redo (the interrupted undo is the one to redo), then undone whole.
        assert.strictEqual(Option.map(yield* Undo.latestRedoable, (c) => c.turn).pipe(Option.getOrElse(() => 0)), 1)
        const back = yield* Undo.redo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual([...back.restored].sort(), ["f1.txt", "f2.txt"])
        assert.deepStrictEqual(tree(root), after)
        assert.isTrue((yield* journal.recover).clean)
        yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual(tree(root), initial)
      }))
    })

    it.live("undo refuses a whole turn when someone changed one of its paths since; the turn stays undoable", () => {
      const root = tempDir()
      write(root, "a.txt", "a0")
      write(root, "b.txt", "b0")
      return provide(Effect.gen(function* () {
        yield* chainWrite({ root, session: "s1", turn: 1, path: "a.txt", content: "a1" })
        yield* chainWrite({ root, session: "s1", turn: 1, path: "b.txt", content: "b1" })
        write(root, "b.txt", "edited by a human")
        const report = yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual(report.restored, [])
        assert.isNull(report.seq)
        assert.strictEqual(report.refused[0]?.path, "b.txt")
        assert.include(report.refused[0]?.reason ?? "", "its content changed since the turn: now 17 bytes in 1 line, the turn left 2 bytes in 1 line")
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "b.txt"), "utf8"), "edited by a human")
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a.txt"), "utf8"), "a1")
        assert.strictEqual((yield* Undo.checkpoints)[0]?.status, "applied")
        // Once the file is back as the turn left it, the same undo restores both.
        write(root, "b.txt", "b1")
        const again = yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual([...again.restored].sort(), ["a.txt", "b.txt"])
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "a.txt"), "utf8"), "a0")
        assert.strictEqual((yield* Undo.checkpoints)[0]?.status, "undone")
      }))
    })

    it.live("keeps an intent's summary (bash: the redacted command) and lists it with the record", () =>
      provide(Effect.gen(function* () {
        const journal = yield* Journal
        const bash = yield* journal.begin(intent({ tool: "bash", capability: "exec", paths: [], summary: "make test" }), [])
        yield* journal.complete(bash.id, "committed")
        const plain = yield* journal.begin(intent(), [])
        const [first, second] = yield* journal.list()
        assert.strictEqual(first?.summary, "make test")
        assert.strictEqual(first?.seq, bash.seq)
        assert.isUndefined(second?.summary)
        assert.strictEqual(second?.seq, plain.seq)
        assert.isTrue((yield* journal.recover).items.every((i) => i.classification !== "ambiguous"))
      })))

    it.live("a turn whose calls changed nothing (a failed call, a write of what was there) is no checkpoint", () => {
      const root = tempDir()
      write(root, "a.txt", "a0")
      return provide(Effect.gen(function* () {
        const journal = yield* Journal
        yield* chainWrite({ root, session: "s1", turn: 1, path: "a.txt", content: "a0" })
        const failed = yield* journal.begin(
          intent({ tool: "edit_file", paths: ["a.txt"], turn: 2 }),
          [{ path: "a.txt", content: new TextEncoder().encode("a0"), mode: 0o644 }]
        )
        yield* journal.complete(failed.id, "failed", "old_string was not found")
        yield* chainWrite({ root, session: "s1", turn: 3, path: "a.txt", content: "a3" })
        const list = yield* Undo.checkpoints
        assert.deepStrictEqual(list.map((c) => c.turn), [3])
        const nothing = yield* Effect.flip(Undo.undo({ root, session: "s1", turn: 1 }))
        assert.strictEqual(nothing._tag, "NothingToRestore")
      }))
    })

    it.live("undo names the calls it cannot restore", () => {
      const root = tempDir()
      return provide(Effect.gen(function* () {
        const journal = yield* Journal
        yield* chainWrite({ root, session: "s1", turn: 1, path: "a.txt", content: "a1" })
        const bash = yield* journal.begin(intent({ tool: "bash", capability: "exec", paths: [] }), [])
        yield* journal.complete(bash.id, "committed")
        const report = yield* Undo.undo({ root, session: "s1", turn: 1 })
        assert.deepStrictEqual(report.notRestorable, [{ seq: bash.seq, tool: "bash" }])
        assert.isFalse(NodeFs.existsSync(NodePath.join(root, "a.txt")))
      }))
    })
  })
