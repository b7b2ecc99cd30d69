/**
 * SearchWorkers on worker_threads: grep's own search runs in a worker thread (the script `script`, built as
 * dist/grep-worker.cjs from src/app/GrepWorker.ts). A session takes an idle worker (or starts one), tells it the
 * pattern, and posts folders to it, several in flight so it never waits for the walk; each answer is matched to its
 * folder by id. When the session's scope closes with every answer in, the worker goes back to the pool (at most
 * `idle` kept, unreferenced so they keep no process alive), so `mcp serve` pays for a thread's start once, not per
 * call. Closed with work under way (a cancellation, a deadline, SIGTERM), the worker is ended: `terminate` stops a
 * thread even inside a backtracking regex, where nothing on the main thread could. Was issue 40's item 7: the own
 * walk's regex ran on the main thread, and `(a+)+(?=b)` on one long line froze `mcp serve` (no other call answered,
 * cancellation and SIGTERM ignored).
 */
import { Worker } from "node:worker_threads"
import { Effect, Layer, Ref } from "effect"
import { type DirResult, type SearchSession, type SearchSpec, SearchWorkerError, SearchWorkers } from "../../ports/SearchWorkers.js"

interface Answer extends DirResult {
  readonly id: number
}

/** One worker and what waits on it. */
interface Held {
  readonly worker: Worker
  readonly waiting: Map<number, (r: Answer | SearchWorkerError) => void>
  broken: SearchWorkerError | undefined
}

const start = (script: string): Held => {
  const worker = new Worker(script)
  const held: Held = { worker, waiting: new Map(), broken: undefined }
  const fail = (reason: string) => {
    held.broken ??= new SearchWorkerError({ kind: "failed", reason })
    for (const resume of held.waiting.values()) resume(held.broken)
    held.waiting.clear()
  }
  worker.on("message", (a: Answer) => {
    const resume = held.waiting.get(a.id)
    held.waiting.delete(a.id)
    resume?.(a)
  })
  worker.on("error", (e) => fail(e.message))
  worker.on("exit", (code) => fail(`the worker exited (${code})`))
  return held
}

export const make = (script: string, options: { readonly idle?: number } = {}) =>
  Effect.gen(function* () {
    const idleMax = options.idle ?? 1
    const pool = yield* Ref.make<ReadonlyArray<Held>>([])
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Ref.getAndSet(pool, []), (idle) => Effect.promise(() => Promise.all(idle.map((h) => h.worker.terminate()))))
    )
    const take = Effect.flatMap(
      Ref.modify(pool, (idle): readonly [Held | undefined, ReadonlyArray<Held>] => [idle[0], idle.slice(1)]),
      (h) =>
        h !== undefined && h.broken === undefined
          ? Effect.succeed(h)
          : Effect.try({ try: () => start(script), catch: (cause) => new SearchWorkerError({ kind: "failed", reason: String(cause) }) })
    )
    /** Back to the pool when whole and idle, else ended. */
    const give = (h: Held) =>
      h.broken === undefined && h.waiting.size === 0
        ? Effect.flatMap(
            Ref.modify(pool, (idle): readonly [boolean, ReadonlyArray<Held>] => (idle.length < idleMax ? [true, [...idle, h]] : [false, idle])),
            (kept) => (kept ? Effect.sync(() => h.worker.unref()) : Effect.promise(() => h.worker.terminate()))
          )
        : Effect.sync(() => {
            h.waiting.clear()
            // Not awaited: a thread deep in a regex ends at its next interrupt check, the call need not wait for it.
            void h.worker.terminate()
          })
    const open = (spec: SearchSpec) =>
      Effect.gen(function* () {
        const h = yield* Effect.acquireRelease(take, give)
        h.worker.ref()
        h.worker.postMessage({ type: "init", ...spec, protectedInodes: [...spec.protectedInodes] })
        let next = 0
        const searchDir = (dir: string, names: ReadonlyArray<string>) =>
          Effect.async<DirResult, SearchWorkerError>((resume) => {
            if (h.broken !== undefined) return resume(Effect.fail(h.broken))
            const id = next++
            h.waiting.set(id, (a) => resume(a instanceof SearchWorkerError ? Effect.fail(a) : Effect.succeed(a)))
            h.worker.postMessage({ type: "search", id, dir, names })
            // Interrupted while waiting: the answer is no longer wanted (the scope's close then ends the worker).
            return Effect.sync(() => void h.waiting.set(id, () => undefined))
          })
        const session: SearchSession = { searchDir }
        return session
      })
    return SearchWorkers.of({ open })
  })

export const layer = (script: string, options: { readonly idle?: number } = {}) => Layer.scoped(SearchWorkers, make(script, options))
