import { assert, describe, it } from "@effect/vitest"
import { intendedOf, type State } from "../../../src/domain/journal/Intended.js"

const bytes = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b))
const shown = (fields: Record<string, string>) => (field: string) => fields[field]
const before = (states: ReadonlyArray<State>) => new Map(states.map((s) => [s.path, s] as const))

describe("what a file tool will leave", () => {
  it("write_file: the new content, keeping the old mode or 0644 for a new file", () => {
    const old = before([{ path: "a.txt", content: bytes("old"), mode: 0o600 }])
    const [w] = intendedOf({ tool: "write_file", args: { path: "a.txt", content: "new" } }, old, shown({ path: "a.txt" }))
    assert.deepStrictEqual([text(w?.content ?? null), w?.mode], ["new", 0o600])
    const [n] = intendedOf({ tool: "write_file", args: { path: "n.txt", content: "x" } }, before([]), shown({ path: "n.txt" }))
    assert.strictEqual(n?.mode, 0o644)
  })

  it("edit_file: the edited text; a failing edit (no match) is unknown, so absent", () => {
    const old = before([{ path: "a.txt", content: bytes("alpha beta"), mode: 0o644 }])
    const [e] = intendedOf({ tool: "edit_file", args: { path: "a.txt", old_string: "beta", new_string: "gamma" } }, old, shown({ path: "a.txt" }))
    assert.strictEqual(text(e?.content ?? null), "alpha gamma")
    assert.deepStrictEqual(intendedOf({ tool: "edit_file", args: { path: "a.txt", old_string: "zzz", new_string: "q" } }, old, shown({ path: "a.txt" })), [])
  })

  it("move_file: the source gone, the target holding its content; delete_file: gone; bash: unknown", () => {
    const old = before([{ path: "a.txt", content: bytes("A"), mode: 0o640 }])
    const moved = intendedOf({ tool: "move_file", args: { from: "a.txt", to: "b.txt" } }, old, shown({ from: "a.txt", to: "b.txt" }))
    assert.deepStrictEqual(moved.map((s) => [s.path, text(s.content), s.mode]), [["a.txt", null, null], ["b.txt", "A", 0o640]])
    assert.deepStrictEqual(intendedOf({ tool: "delete_file", args: { path: "a.txt" } }, old, shown({ path: "a.txt" })), [{ path: "a.txt", content: null, mode: null }])
    assert.deepStrictEqual(intendedOf({ tool: "bash", args: { command: "ls" } }, old, shown({})), [])
  })
})
