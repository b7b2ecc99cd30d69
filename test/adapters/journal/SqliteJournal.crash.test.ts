/**
 * Crash tests with real processes: a child journals writes through SQLite and is SIGKILLed at injected points
 * (before the intent, after it, after the effect, after the terminal record, around finalisation) or at a
 * random moment. After each kill: no record lost, every call classified correctly, nothing redone, and undo
 * restores the workspace byte for byte. Then two processes write at once and lose nothing.
 *
 * CRASH_POINTS=all runs every injection point (28); by default a random sample of 8 (the seed is printed).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, FastCheck, Layer } from "effect"
import * as SqliteJournal from "../../../src/adapters/journal/SqliteJournal.js"
import * as Undo from "../../../src/tools/UndoTool.js"
import { Journal } from "../../../src/ports/Journal.js"
import * as NodeFileSystem from "../../../src/adapters/fs/NodeFileSystem.js"
import { tempDir, tree, write } from "../../support/Workspace.js"
import { initialFiles, scenario, steps } from "./crash-scenario.js"

const child = fileURLToPath(new URL("./journal-child.ts", import.meta.url))

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
}

/** Runs the child; `killAfter` (ms after it says "ready") kills it from outside. */
const runChild = (args: ReadonlyArray<string>, killAfter?: number) =>
  Effect.async<Run>((resume) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child, ...args], { stdio: ["ignore", "pipe", "inherit"] })
    let stdout = ""
    let timer: NodeJS.Timeout | undefined
    proc.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (killAfter !== undefined && timer === undefined && stdout.includes("ready")) {
        timer = setTimeout(() => proc.kill("SIGKILL"), killAfter)
      }
    })
    proc.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      resume(Effect.succeed({ code, signal, stdout }))
    })
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

const workspace = (): string => {
  const root = tempDir("minicode-crash-")
  for (const f of initialFiles) write(root, f.path, f.content, f.mode)
  return root
}

/** The loop child keeps every turn (`journal-child.ts`), so undoing them all reaches the initial state. */
const withJournal = (root: string, retentionTurns?: number) =>
  Layer.merge(
    SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(root), ...(retentionTurns === undefined ? {} : { retentionTurns }) }),
    NodeFileSystem.layer
  )

/** Undo every checkpoint, newest first: the workspace must come back exactly. */
const undoAll = (root: string) =>
  Effect.gen(function* () {
    const list = yield* Undo.checkpoints
    for (const checkpoint of list) {
      const report = yield* Undo.undo({ root, session: checkpoint.session, turn: checkpoint.turn })
      assert.deepStrictEqual(report.refused, [], `turn ${checkpoint.turn}`)
    }
  })

const sample = (): ReadonlyArray<number> => {
  const all = steps.map((_, i) => i)
  if (process.env["CRASH_POINTS"] === "all") return all
  const seed = Date.now() % 1_000_000
  console.log(`crash points seed ${seed}`)
  return FastCheck.sample(FastCheck.shuffledSubarray(all, { minLength: 8, maxLength: 8 }), { seed, numRuns: 1 })[0] ?? all
}

describe("SqliteJournal under SIGKILL", () => {
  it.live("at injected points: recovery classifies every call, nothing is lost or redone, undo restores", () =>
    Effect.forEach(sample(), (killAt) =>
      Effect.gen(function* () {
        const root = workspace()
        const initial = tree(root)
        const run = yield* runChild(["crash", root, String(killAt)])
        assert.strictEqual(run.signal, "SIGKILL", `step ${killAt}: ${run.stdout}`)
        const point = steps[killAt]
        if (point === undefined) return

        // What the child reached: calls before the point are complete, finalised turns are those before it.
        const calls = scenario.flatMap((t) => t.calls.map((c, index) => ({ ...c, turn: t.turn, index })))
        const position = (turn: number, index: number) => calls.findIndex((c) => c.turn === turn && c.index === index)
        const killedCall = point.kind === "call" ? position(point.turn, point.index) : position(point.turn, 2) + 1
        const begun = calls.slice(0, point.kind === "call" && point.phase === "before-intent" ? killedCall : killedCall + (point.kind === "call" ? 1 : 0))
        const finalizedTurns = scenario
          .map((t) => t.turn)
          .filter((t) => t < point.turn || (point.kind === "finalize" && point.phase === "after-finalize" && t === point.turn))

        yield* Effect.gen(function* () {
          const journal = yield* Journal
          const records = yield* journal.list()
          assert.strictEqual(records.length, begun.length, `step ${killAt}: no record lost, none invented`)
          const before = tree(root)
          const plan = yield* journal.recover
          assert.deepStrictEqual(tree(root), before, "recovery acts on nothing")
          for (const [i, record] of records.entries()) {
            const call = begun[i]
            assert.isDefined(call)
            if (call === undefined) continue
            assert.deepStrictEqual([record.turn, record.paths], [call.turn, [call.path]])
            const interrupted = point.kind === "call" && i === killedCall && point.phase !== "after-terminal"
            assert.strictEqual(record.state, interrupted ? "pending" : "committed", `step ${killAt} #${record.seq}`)
            assert.strictEqual(record.finalized, finalizedTurns.includes(record.turn))
            const item = plan.items.find((it) => it.seq === record.seq)
            if (record.finalized) assert.isUndefined(item)
            else assert.strictEqual(item?.classification, interrupted ? "verify" : "done")
            if (interrupted) assert.deepStrictEqual(item?.paths, [call.path])
          }
          yield* undoAll(root)
          assert.deepStrictEqual(tree(root), initial, `step ${killAt}: undo restores byte for byte`)
          assert.isTrue((yield* journal.recover).items.every((it) => it.tool !== "undo"), "undo records are finalised")
        }).pipe(Effect.provide(withJournal(root)))
      }), { concurrency: 2, discard: true }), { timeout: process.env["CRASH_POINTS"] === "all" ? 300_000 : 90_000 })

  it.live("at random moments: done means done, and undo restores", () =>
    Effect.forEach([150, 300, 450], (killAfter) =>
      Effect.gen(function* () {
        const root = tempDir("minicode-crash-")
        for (const i of [0, 1, 2]) write(root, `f${i}.txt`, `initial ${i}\n`, 0o644)
        const initial = tree(root)
        const run = yield* runChild(["loop", root], killAfter + Math.floor(Math.random() * 100))
        assert.strictEqual(run.signal, "SIGKILL")
        const committed = new Set(run.stdout.split("\n").flatMap((l) => (l.startsWith("committed ") ? [Number(l.slice(10))] : [])))
        yield* Effect.gen(function* () {
          const journal = yield* Journal
          const records = yield* journal.list()
          for (const seq of committed) assert.isTrue(records.some((r) => r.seq === seq && r.state === "committed"), `#${seq} lost`)
          assert.isAtMost(records.filter((r) => r.state === "pending").length, 1)
          const plan = yield* journal.recover
          for (const item of plan.items) {
            const record = records.find((r) => r.seq === item.seq)
            if (item.classification === "done") assert.strictEqual(record?.state, "committed")
            // The advice names the damage, should recovery ever find one (seen once in a full run, not reproduced).
            else assert.strictEqual(item.classification, "verify", `#${item.seq} ${item.tool}: ${item.advice}`)
          }
          yield* undoAll(root)
          // A kill between the temporary file and its rename leaves the temporary behind (`.<name>.<id>.minicode-tmp`,
          // NodeFileSystem's writes): not the journal's.
          const after = Object.fromEntries(Object.entries(tree(root)).filter(([path]) => !path.endsWith(".tmp") && !path.endsWith(".minicode-tmp")))
          assert.deepStrictEqual(after, initial)
        }).pipe(Effect.provide(withJournal(root, 1_000_000)))
      }), { discard: true }), { timeout: 60_000 })

  it.live("two processes writing at once lose no record", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-concurrent-")
      const n = 150
      const runs = yield* Effect.all([runChild(["flood", root, "p1", String(n)]), runChild(["flood", root, "p2", String(n)])], {
        concurrency: 2
      })
      for (const run of runs) assert.strictEqual(run.code, 0, run.stdout)
      yield* Effect.gen(function* () {
        const records = yield* Effect.flatMap(Journal, (j) => j.list())
        assert.strictEqual(records.length, 2 * n)
        assert.strictEqual(new Set(records.map((r) => r.seq)).size, 2 * n)
        for (const tag of ["p1", "p2"]) {
          const mine = records.filter((r) => r.session === tag)
          assert.strictEqual(mine.length, n)
          assert.isTrue(mine.every((r) => r.state === "committed"))
          assert.deepStrictEqual(mine.map((r) => r.paths[0]), Array.from({ length: n }, (_, i) => `${tag}-${i}`))
        }
        assert.isTrue(NodeFs.existsSync(NodePath.join(root, ".minicode", "state.db")))
      }).pipe(Effect.provide(withJournal(root)))
    }), { timeout: 60_000 })
})
