/** The fixed scenario of the crash test: two turns of journaled writes over a small workspace. */
export const initialFiles: ReadonlyArray<{ readonly path: string; readonly content: string; readonly mode: number }> = [
  { path: "b.txt", content: "bee\n", mode: 0o640 },
  { path: "c.txt", content: "sea\n", mode: 0o600 }
]

export const scenario: ReadonlyArray<{
  readonly turn: number
  readonly calls: ReadonlyArray<{ readonly path: string; readonly content: string }>
}> = [
  { turn: 1, calls: [{ path: "a.txt", content: "A1" }, { path: "b.txt", content: "B1" }, { path: "a.txt", content: "A2" }] },
  { turn: 2, calls: [{ path: "c.txt", content: "C1" }, { path: "sub/d.txt", content: "D1" }, { path: "b.txt", content: "B2" }] }
]

export const phases = ["before-intent", "after-intent", "after-effect", "after-terminal"] as const

/** Every injection point, in the order the child reaches them. */
export const steps: ReadonlyArray<
  | { readonly kind: "call"; readonly turn: number; readonly index: number; readonly phase: (typeof phases)[number] }
  | { readonly kind: "finalize"; readonly turn: number; readonly phase: "before-finalize" | "after-finalize" }
> = scenario.flatMap((t) => [
  ...t.calls.flatMap((_, index) => phases.map((phase) => ({ kind: "call" as const, turn: t.turn, index, phase }))),
  { kind: "finalize" as const, turn: t.turn, phase: "before-finalize" as const },
  { kind: "finalize" as const, turn: t.turn, phase: "after-finalize" as const }
])
