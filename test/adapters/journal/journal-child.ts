/**
 * The crash tests' child process (run with `node --import tsx`): write_file through the shipped chain on a real
 * workspace, journaled by SQLite, killing itself with SIGKILL at an injected step, or running until the parent kills it.
 *
 *   crash <root> <killAt>     the fixed scenario, SIGKILL at step killAt (see `steps` in the test)
 *   loop <root>               random writes, turn after turn, reporting progress on stdout, until killed
 *   flood <root> <tag> <n>    n begin/complete pairs as fast as possible (the concurrency test)
 *
 * A test harness, so it runs its own Effect.
 */
import * as NodeFs from "node:fs"
import { Effect } from "effect"
import * as SqliteJournal from "../../../src/adapters/journal/SqliteJournal.js"
import { Journal } from "../../../src/ports/Journal.js"
import { chainWrite, type Phase } from "../../support/ChainWrite.js"
import { scenario } from "./crash-scenario.js"

const [mode = "", root = "", arg1 = "", arg2 = ""] = process.argv.slice(2)
const say = (line: string) => NodeFs.writeSync(1, `${line}\n`)
const encode = (text: string) => new TextEncoder().encode(text)
// The loop keeps every turn so the parent can undo them all back to the initial workspace.
const layer = SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(root), ...(mode === "loop" ? { retentionTurns: 1_000_000 } : {}) })

const crash = (killAt: number) =>
  Effect.gen(function* () {
    const journal = yield* Journal
    let step = 0
    const at = (_phase: Phase | "before-finalize" | "after-finalize") =>
      Effect.sync(() => {
        if (step === killAt) process.kill(process.pid, "SIGKILL")
        step += 1
      })
    for (const turn of scenario) {
      for (const call of turn.calls) {
        yield* chainWrite({ root, session: "s", turn: turn.turn, path: call.path, content: call.content, at })
      }
      yield* at("before-finalize")
      yield* journal.finalizeTurn("s", turn.turn)
      yield* at("after-finalize")
    }
  })

const loop = Effect.gen(function* () {
  const journal = yield* Journal
  say("ready")
  for (let turn = 1; ; turn++) {
    for (let i = 0; i < 4; i++) {
      const path = `f${Math.floor(Math.random() * 3)}.txt`
      const record = yield* chainWrite({
        root, session: "s", turn, path, content: `t${turn} c${i} ${Math.random()}`,
        at: (phase) => Effect.sync(() => {
          if (phase === "after-effect") say(`effect ${path}`)
        })
      })
      say(`committed ${record.seq}`)
    }
    yield* journal.finalizeTurn("s", turn)
    say(`finalized ${turn}`)
  }
})

const flood = (tag: string, n: number) =>
  Effect.gen(function* () {
    const journal = yield* Journal
    for (let i = 0; i < n; i++) {
      const r = yield* journal.begin({
        session: tag, turn: 1, tool: "write_file", capability: "write", paths: [`${tag}-${i}`],
        canonicalArgs: JSON.stringify({ i }), remote: false
      }, [{ path: `${tag}-${i}`, content: encode(`${tag} ${i}`), mode: 0o644 }])
      yield* journal.complete(r.id, "committed")
    }
    say(`done ${tag}`)
  })

const program = mode === "crash" ? crash(Number(arg1)) : mode === "loop" ? loop : flood(arg1, Number(arg2))
Effect.runPromise(program.pipe(Effect.provide(layer))).then(
  () => process.exit(0),
  (error: unknown) => {
    say(`error ${String(error)}`)
    process.exit(1)
  }
)
