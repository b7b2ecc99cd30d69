/**
 * The bottom of the chain: runs an admitted call. Reads run in parallel; writes are bounded in number and
 * serialised per path; every output is capped with a visible marker; interruption stops the work.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import * as Deadline from "../domain/core/Deadline.js"
import { DeadlineExceeded, Unavailable } from "../domain/core/Errors.js"
import { nameOf } from "../domain/core/Tools.js"
import * as ProtectedAliases from "../ports/ProtectedAliases.js"
import { Diagnostics, type DiagnosticsShape } from "../ports/Diagnostics.js"
import { Session } from "../ports/Session.js"
import { type Invocation, ToolExecutor, type ToolOutput } from "../ports/ToolExecutor.js"
import type { ToolError } from "../domain/core/Errors.js"
import * as FileTools from "../tools/FileTools.js"
import * as Grep from "../tools/Grep.js"
import { FileSystem } from "../ports/FileSystem.js"
import { SearchWorkers } from "../ports/SearchWorkers.js"
import { TextSearch } from "../ports/TextSearch.js"

const maxConcurrentWrites = 8

/** Tools other issues fill in: until then a clear "not available", never a silent no-op. */
export type Extension = (inv: Invocation) => Effect.Effect<ToolOutput, ToolError> | undefined

/**
 * Executors for tools beyond the file tools (bash, git, MCP, LSP, SQL…), provided by the composition together with
 * `Diagnostics`, the post-write hook (`noDiagnostics` when no language server is configured): both are required by
 * `layerWith`, nothing is looked up optionally.
 */
export class Extensions extends Context.Tag("minicode/Extensions")<Extensions, ReadonlyArray<Extension>>() {}

/** The post-write hook of a composition without a language server: nothing is appended to a write's result. */
export const noDiagnostics: DiagnosticsShape = { afterWrite: () => Effect.succeed(undefined) }

/** The executor over the file tools, `given`, and the composition's extensions and post-write hook. */
export const makeWith = (given: ReadonlyArray<Extension> = []) =>
  Effect.gen(function* () {
    const provided = yield* Extensions
    const diagnostics = yield* Diagnostics
    return yield* build([...given, ...provided], Option.some(diagnostics))
  })

/** The executor over the file tools and `given` alone: no other extension, no post-write hook. */
export const make = (given: ReadonlyArray<Extension> = []) => build(given, Option.none())

const build = (extensions: ReadonlyArray<Extension>, diagnostics: Option.Option<DiagnosticsShape>) =>
  Effect.gen(function* () {
    const session = yield* Session
    const fs = yield* FileSystem
    const writes = yield* Effect.makeSemaphore(maxConcurrentWrites)
    // One semaphore per path, made inside the atomic `Ref.modify` (a plain allocation): no effectful update and
    // no lock around the table itself, which a SynchronizedRef would take on every write.
    const locks = yield* Ref.make(new Map<string, Effect.Semaphore>())
    const locksFor = (paths: ReadonlyArray<string>) =>
      Ref.modify(locks, (map) => {
        let next = map
        const sems = paths.map((path) => {
          const found = next.get(path)
          if (found !== undefined) return found
          const made = Effect.unsafeMakeSemaphore(1)
          next = new Map(next).set(path, made)
          return made
        })
        return [sems, next] as const
      })
    /**
     * One permit of `sem` around `effect`: taken at once when one is free (a semaphore's `take` always suspends the
     * fiber, even then, and resumes it on the scheduler), else waited for in turn.
     */
    const holding = (sem: Effect.Semaphore) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(sem.withPermitsIfAvailable(1)(effect), (ran) => (Option.isSome(ran) ? Effect.succeed(ran.value) : sem.withPermits(1)(effect)))
    /** Holds one permit per written path (in a stable order, so two writers cannot deadlock) and one global permit. */
    const serialised = <A, E, R>(inv: Invocation, effect: Effect.Effect<A, E, R>) => {
      const paths = [...new Set(Object.values(inv.resolved).map((f) => f.real))].sort()
      return Effect.flatMap(locksFor(paths), (sems) =>
        holding(writes)(sems.reduceRight<Effect.Effect<A, E, R>>((acc, sem) => holding(sem)(acc), effect)))
    }
    /** After a successful write or edit, the file's new diagnostics (when a language server handles it). */
    const withDiagnostics = <E, R>(inv: Invocation, effect: Effect.Effect<ToolOutput, E, R>): Effect.Effect<ToolOutput, E, R> => {
      const path = inv.resolved["path"]?.real
      if (Option.isNone(diagnostics) || path === undefined) return effect
      const hook = diagnostics.value
      return Effect.flatMap(effect, (output) =>
        Effect.zipRight(
          // The write is done: its journal record is settled before the wait for diagnostics begins.
          inv.mutationDone === undefined ? Effect.void : inv.mutationDone.done({ isError: output.isError === true }),
          Effect.map(hook.afterWrite(path), (note) => (note === undefined ? output : { ...output, text: `${output.text}\n${note}` }))
        )
      )
    }
    const textSearch = yield* TextSearch
    const searchWorkers = yield* SearchWorkers
    const env: FileTools.Env = { session, fs, listings: yield* FileTools.makeListingMemo, textSearch, aliases: yield* ProtectedAliases.ProtectedAliases, searchWorkers }
    const dispatch = (inv: Invocation): Effect.Effect<ToolOutput, ToolError> => {
      const call = inv.facts.call
      switch (call.tool) {
        case "read_file":
          return FileTools.readFile(env, inv, call)
        case "list_dir":
          return FileTools.listDir(env, inv)
        case "glob":
          return FileTools.glob(env, inv, call)
        case "grep":
          return Grep.grep(env, inv, call)
        case "write_file":
          return withDiagnostics(inv, serialised(inv, FileTools.writeFile(env, inv, call)))
        case "edit_file":
          return withDiagnostics(inv, serialised(inv, FileTools.editFile(env, inv, call)))
        case "move_file":
          return serialised(inv, FileTools.moveFile(env, inv, call))
        case "delete_file":
          return serialised(inv, FileTools.deleteFile(env, inv))
        default: {
          for (const extension of extensions) {
            const handled = extension(inv)
            if (handled !== undefined) return handled
          }
          return Effect.fail(new Unavailable({ port: nameOf(call), reason: "this tool is not installed in this build" }))
        }
      }
    }
    /** However it is stuck, a call ends at its overall deadline: interrupted (a running process is killed) and said so. */
    const bounded = (inv: Invocation): Effect.Effect<ToolOutput, ToolError> => {
      const millis = Deadline.deadlineMs(inv.facts.call, session.toolDeadlineMs)
      return Effect.timeoutFail(dispatch(inv), {
        duration: millis,
        onTimeout: () => new DeadlineExceeded({ tool: nameOf(inv.facts.call), millis })
      })
    }
    return ToolExecutor.of({
      run: (inv) => Effect.map(bounded(inv), (output) => FileTools.cap(output, session.maxOutputBytes))
    })
  })

export const layer = (extensions: ReadonlyArray<Extension> = []) => Layer.effect(ToolExecutor, make(extensions))

/** The executor over the composition's `Extensions` and `Diagnostics` (see `makeWith`). */
export const layerWith = (extensions: ReadonlyArray<Extension> = []) => Layer.effect(ToolExecutor, makeWith(extensions))
