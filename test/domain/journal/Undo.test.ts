import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Undo from "../../../src/domain/journal/Undo.js"

const st = (hash: string | null, mode: number | null = hash === null ? null : 0o644): Undo.FileState => ({ hash, mode })

describe("Undo.planUndo", () => {
  const changes: ReadonlyArray<Undo.PathChange> = [
    { seq: 1, path: "a", state: "committed", before: st("a0"), after: st("a1") },
    { seq: 2, path: "a", state: "committed", before: st("a1"), after: st("a2") },
    { seq: 3, path: "b", state: "pending", before: st(null), after: st("b1") }
  ]

  it("restores the first before-image; accepts either state of an unconfirmed last call", () => {
    const current = new Map([["a", st("a2")], ["b", st("b1")]])
    const steps = Undo.planUndo(changes, (p) => current.get(p) ?? Undo.absent)
    assert.deepStrictEqual(steps, [
      { _tag: "Restore", path: "a", to: st("a0") },
      { _tag: "Restore", path: "b", to: st(null) }
    ])
    const notHappened = Undo.planUndo(changes, (p) => (p === "a" ? st("a2") : Undo.absent))
    assert.strictEqual(notHappened[1]?._tag, "Skip")
  })

  it("refuses a path changed after the turn, or whose mode changed", () => {
    assert.strictEqual(Undo.planUndo(changes, (p) => (p === "a" ? st("zz") : st("b1")))[0]?._tag, "Refuse")
    assert.strictEqual(Undo.planUndo(changes, (p) => (p === "a" ? st("a2", 0o755) : st("b1")))[0]?._tag, "Refuse")
    assert.strictEqual(Undo.planUndo(changes, (p) => (p === "a" ? st("a1") : st("b1")))[0]?._tag, "Refuse")
  })

  it("redo re-applies only confirmed results", () => {
    const steps = Undo.planRedo(changes, (p) => (p === "a" ? st("a0") : Undo.absent))
    assert.deepStrictEqual(steps.map((s) => s._tag), ["Restore", "Refuse"])
  })

  // Any sequence of committed writes to a few paths, then undo, lands every path on its first before-image;
  // any foreign change is refused.
  const WritesArb = FastCheck.array(
    FastCheck.record({ path: FastCheck.constantFrom("a", "b", "c"), content: FastCheck.option(FastCheck.constantFrom("x", "y", "z"), { nil: null }) }),
    { minLength: 1, maxLength: 12 }
  )
  it.prop("undo after any committed writes restores the initial states", { writes: WritesArb, foreign: FastCheck.boolean() }, ({ foreign, writes }) => {
    const initial = new Map<string, Undo.FileState>([["a", st("a0")], ["b", st(null)], ["c", st("c0")]])
    const world = new Map(initial)
    const changes = writes.map((w, i): Undo.PathChange => {
      const before = world.get(w.path) ?? Undo.absent
      const after = st(w.content)
      world.set(w.path, after)
      return { seq: i + 1, path: w.path, state: "committed", before, after }
    })
    const touched = writes[0]?.path ?? "a"
    if (foreign) world.set(touched, st("foreign"))
    const steps = Undo.planUndo(changes, (p) => world.get(p) ?? Undo.absent)
    for (const step of steps) {
      if (step._tag === "Restore") world.set(step.path, step.to)
      if (step._tag === "Refuse") assert.isTrue(foreign && step.path === touched)
    }
    for (const [path, state] of initial) {
      if (foreign && path === touched) assert.deepStrictEqual(world.get(path), st("foreign"))
      else assert.isTrue(Undo.sameState(world.get(path) ?? Undo.absent, state), path)
    }
  })
})

describe("Undo: a refusal says what changed in words (issue 44)", () => {
  const f = (hash: string, size: number, lines: number, mode = 0o644): Undo.FileState => ({ hash, mode, size, lines })
  it("deleted, made, a folder, sizes and lines, the same size, the mode; never a hash", () => {
    const left = [f("h1", 1204, 40)]
    const cases: ReadonlyArray<readonly [Undo.FileState, ReadonlyArray<Undo.FileState>, string]> = [
      [Undo.absent, left, "it was deleted since the turn, which left a file of 1,204 bytes in 40 lines (mode 644)"],
      [{ hash: "directory:", mode: 0o755 }, left, "it is now a directory; the turn left a file of 1,204 bytes in 40 lines (mode 644)"],
      [f("h2", 1180, 39), left, "its content changed since the turn: now 1,180 bytes in 39 lines, the turn left 1,204 bytes in 40 lines"],
      [f("h2", 1204, 40), left, "its content changed since the turn: the same size (1,204 bytes in 40 lines), other content"],
      [f("h1", 1204, 40, 0o600), left, "its mode changed since the turn: now 600, the turn left 644"],
      [f("h2", 1, 1), [Undo.absent], "a file of 1 byte in 1 line (mode 644) was made there since the turn, which left it absent"]
    ]
    for (const [now, was, text] of cases) {
      const said = Undo.difference(now, was, "the turn")
      assert.strictEqual(said, text)
      assert.notInclude(said, "h1")
    }
    assert.deepStrictEqual(Undo.measure(new TextEncoder().encode("a\nb")), { size: 3, lines: 2 })
    assert.deepStrictEqual(Undo.measure(new TextEncoder().encode("a\nb\n")), { size: 4, lines: 2 })
    assert.deepStrictEqual(Undo.measure(new Uint8Array()), { size: 0, lines: 0 })
  })
})
