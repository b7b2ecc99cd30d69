/**
 * When a language server's answer is the whole answer. Diagnostics are reported only once the server has settled:
 *
 * 1. tsserver (typescript-language-server offers `typescript.tsserverRequest`): its own diagnostics requests,
 *    `semanticDiagnosticsSync` then `syntacticDiagnosticsSync`, answered once the project is loaded and checked;
 *    after a write, `fileReferences` names the files that import the edited one and each is checked the same way.
 * 2. A server that offers pull diagnostics (`diagnosticProvider`): `textDocument/diagnostic` (retried when the
 *    server cancels it to ask for a retrigger), with the related documents' reports.
 * 3. Otherwise the published report: the one carrying our version; for servers that omit versions, the reports
 *    after the barrier until the server is quiet (`settleMs`) and no work-done progress (`$/progress`) is running.
 *    Reports published meanwhile for other files (dependents) are kept.
 *
 * All within the server's diagnostics deadline; if it passes while the server is busy, the report says so
 * (`incompleteAfter`). Position requests first wait for the project to load (tsserver: `projectInfo`; others: no
 * work-done progress running), up to the server's load deadline, then answer with `loadingSeconds`.
 */
import { Clock, Deferred, Duration, Effect, Either, Option, Queue, Schema } from "effect"
import type { ToolFailed } from "../../domain/core/Errors.js"
import { ToolTimeout } from "../../domain/core/Errors.js"
import * as Lsp from "../../domain/lsp/Lsp.js"
import * as Reports from "../../domain/lsp/Reports.js"
import type { LspDocument, LspError } from "../../ports/LspTransport.js"
import type { Instance, Published } from "./LspInstance.js"
import { tail, tsserverRequest } from "./LspProtocol.js"

/** A request's outcome when its deadline is not a reason to kill the server (a busy server is not a hung one). */
export type Soft = { readonly _tag: "Reply"; readonly value: unknown } | { readonly _tag: "Late" } | { readonly _tag: "Retrigger" }

export interface Channel {
  /** The request within `ms`; `Late` (cancelled) after it; `Retrigger` when the server cancelled it and asks again. */
  readonly soft: (instance: Instance, method: string, params: unknown, ms: number) => Effect.Effect<Soft, LspError>
  readonly notify: (instance: Instance, method: string, params: unknown) => Effect.Effect<void, LspError>
  readonly withDocument: <A, E>(
    instance: Instance,
    doc: LspDocument,
    use: (uri: string, version: number) => Effect.Effect<A, E>,
    options?: { readonly forceChange?: boolean }
  ) => Effect.Effect<A, E | LspError>
  readonly barrier: (instance: Instance) => Effect.Effect<{ readonly mark: number; readonly answered: boolean }>
  readonly failed: (name: string, reason: string) => ToolFailed
  readonly settleMs: number
}

/** How many dependents of an edited file tsserver is asked to check. */
export const dependentsChecked = 25

/** Succeeds once no work-done progress is running on the server (at once when none is); interruptible. */
const progressIdle = (instance: Instance) =>
  Effect.async<void>((resume) => {
    const life = instance.life
    if (life.progress.size === 0 || !life.alive) return resume(Effect.void)
    const check = () => {
      if (life.progress.size === 0 || !life.alive) {
        life.progressListeners.delete(check)
        resume(Effect.void)
      }
    }
    life.progressListeners.add(check)
    return Effect.sync(() => void life.progressListeners.delete(check))
  })

const deadlineClock = (ms: number) =>
  Effect.map(Clock.currentTimeMillis, (start) => ({
    start,
    remaining: Effect.map(Clock.currentTimeMillis, (now) => Math.max(0, start + ms - now)),
    waited: Effect.map(Clock.currentTimeMillis, (now) => now - start)
  }))

const tsserver = (ch: Channel, instance: Instance, command: string, args: unknown, ms: number) =>
  ch.soft(instance, "workspace/executeCommand", { command: tsserverRequest, arguments: [command, args] }, ms)

const decodeOr = <A, I>(schema: Schema.Schema<A, I>, fallback: A) => (value: unknown): A =>
  Either.getOrElse(Schema.decodeUnknownEither(schema)(value), () => fallback)

/** Waits for the project of an open document to load; the whole seconds waited when the load deadline passed. */
export const ready = (ch: Channel, instance: Instance, doc: LspDocument): Effect.Effect<number | undefined, LspError> =>
  Effect.gen(function* () {
    const ms = instance.timeouts.loadMs
    const clock = yield* deadlineClock(ms)
    if (instance.caps.tsserver) {
      const r = yield* tsserver(ch, instance, "projectInfo", { file: doc.path, needFileNameList: false }, ms)
      return r._tag === "Late" ? Reports.seconds(yield* clock.waited) : undefined
    }
    yield* ch.barrier(instance)
    const idle = yield* progressIdle(instance).pipe(Effect.timeoutOption(Duration.millis(yield* clock.remaining)))
    return Option.isNone(idle) ? Reports.seconds(yield* clock.waited) : undefined
  })

const viaTsserver = (ch: Channel, instance: Instance, doc: LspDocument, changed: boolean) =>
  Effect.gen(function* () {
    const clock = yield* deadlineClock(instance.timeouts.diagnosticsMs)
    const check = (file: string) =>
      Effect.gen(function* () {
        const semantic = yield* tsserver(ch, instance, "semanticDiagnosticsSync", { file }, yield* clock.remaining)
        if (semantic._tag !== "Reply") return Option.none<ReadonlyArray<Lsp.Diagnostic>>()
        const syntactic = yield* tsserver(ch, instance, "syntacticDiagnosticsSync", { file }, yield* clock.remaining)
        if (syntactic._tag !== "Reply") return Option.none<ReadonlyArray<Lsp.Diagnostic>>()
        const refused = [semantic.value, syntactic.value].find((v) => typeof v === "object" && v !== null && "success" in v && v.success === false)
        if (refused !== undefined) {
          const why = typeof refused === "object" && refused !== null && "message" in refused ? String(refused.message) : "no reason given"
          return yield* ch.failed(instance.name, `tsserver could not check ${file}: ${why}`)
        }
        const decode = decodeOr(Reports.TsDiagnostics, [])
        return Option.some([...decode(syntactic.value), ...decode(semantic.value)])
      })
    const own = yield* check(doc.path)
    if (Option.isNone(own)) return { diagnostics: [], incompleteAfter: Reports.seconds(yield* clock.waited) } satisfies Reports.DiagnosticsReport
    if (!changed) return { diagnostics: own.value } satisfies Reports.DiagnosticsReport
    const refs = yield* tsserver(ch, instance, "fileReferences", { file: doc.path }, yield* clock.remaining)
    const files = refs._tag === "Reply" ? decodeOr(Reports.TsFileReferences, [])(refs.value).filter((f) => f !== doc.path) : []
    const related: Array<Reports.Related> = []
    for (const file of files.slice(0, dependentsChecked)) {
      if ((yield* clock.remaining) === 0) break
      const found = yield* check(file).pipe(Effect.catchTag("ToolFailed", () => Effect.succeedNone))
      if (Option.isSome(found) && found.value.some((d) => d.severity === 1)) related.push({ uri: Lsp.fileUri(file), diagnostics: found.value })
    }
    return { diagnostics: own.value, related } satisfies Reports.DiagnosticsReport
  })

/** After a write, a server that offers `workspace/diagnostic`: the other documents it reports errors in. */
const workspacePulled = (ch: Channel, instance: Instance, uri: string, ms: number) =>
  Effect.map(ch.soft(instance, "workspace/diagnostic", { previousResultIds: [] }, ms), (r): ReadonlyArray<Reports.Related> => {
    if (r._tag !== "Reply") return []
    const report = Schema.decodeUnknownEither(Reports.WorkspacePullReport)(r.value)
    return Either.isRight(report) ? Reports.workspaceErrors(report.right, uri, dependentsChecked) : []
  })

const viaPull = (ch: Channel, instance: Instance, uri: string, changed: boolean) =>
  Effect.gen(function* () {
    const clock = yield* deadlineClock(instance.timeouts.diagnosticsMs)
    for (;;) {
      const r = yield* ch.soft(instance, "textDocument/diagnostic", { textDocument: { uri } }, yield* clock.remaining)
      if (r._tag === "Reply") {
        const report = Schema.decodeUnknownEither(Reports.PullReport)(r.value)
        if (Either.isLeft(report)) return yield* ch.failed(instance.name, `unexpected reply to textDocument/diagnostic: ${report.left.message.slice(0, 300)}`)
        const related = Reports.relatedOf(report.right)
        const left = yield* clock.remaining
        const more = changed && instance.caps.workspacePull && left > 0 ? yield* workspacePulled(ch, instance, uri, left) : []
        const known = new Set(related.map((x) => x.uri))
        return { diagnostics: report.right.items ?? [], related: [...related, ...more.filter((x) => !known.has(x.uri))] } satisfies Reports.DiagnosticsReport
      }
      if (r._tag === "Late" || (yield* clock.remaining) === 0) {
        return { diagnostics: [], incompleteAfter: Reports.seconds(yield* clock.waited) } satisfies Reports.DiagnosticsReport
      }
      yield* Effect.sleep(Duration.millis(200))
    }
  })

/** Every report from now on, delivered to a queue (the listener is removed when the scope closes). */
const subscribe = (instance: Instance) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Published>()
    const listener = (p: Published) => void queue.unsafeOffer(p)
    yield* Effect.acquireRelease(
      Effect.sync(() => instance.life.listeners.add(listener)),
      () => Effect.sync(() => instance.life.listeners.delete(listener))
    )
    return queue
  })

const viaPublish = (ch: Channel, instance: Instance, doc: LspDocument) =>
  Effect.gen(function* () {
    const uri = Lsp.fileUri(doc.path)
    const queue = yield* subscribe(instance)
    const timeoutMs = instance.timeouts.diagnosticsMs
    const clock = yield* deadlineClock(timeoutMs)
    const others = new Map<string, Published>()
    return yield* ch.withDocument(
      instance,
      doc,
      (_, version) =>
        Effect.gen(function* () {
          const { mark, answered } = yield* ch.barrier(instance)
          const fresh = (p: Published) => p.uri === uri && (p.version !== undefined ? p.version >= version : p.seq > mark)
          const keep = (p: Published) => {
            if (p.uri !== uri && p.seq > mark) others.set(p.uri, p)
            return fresh(p)
          }
          // The next fresh report for our document within `ms`; none when the time is up or the server died.
          const next = (ms: number) =>
            Effect.raceFirst(
              Queue.take(queue).pipe(Effect.repeat({ until: keep }), Effect.map(Option.some)),
              Effect.as(Deferred.await(instance.exited), Option.none<Published>())
            ).pipe(Effect.timeout(Duration.millis(ms)), Effect.option, Effect.map(Option.flatten))
          const related = () => [...others.values()].map((p) => ({ uri: p.uri, diagnostics: p.diagnostics }))
          const first = yield* Effect.flatMap(clock.remaining, next)
          if (Option.isNone(first)) {
            if (!instance.life.alive) {
              return yield* ch.failed(instance.name, `the server stopped before publishing diagnostics: ${instance.life.reason}${tail(instance.life.stderr)}`)
            }
            // Silent and not answering requests either: hung, and killed.
            if (!answered) {
              yield* instance.kill(`it published no diagnostics and answered no request within ${timeoutMs} ms, and was killed`)
              return yield* new ToolTimeout({ tool: `language server ${instance.name} (diagnostics)`, millis: timeoutMs })
            }
            return { diagnostics: [], incompleteAfter: Reports.seconds(yield* clock.waited), related: related() } satisfies Reports.DiagnosticsReport
          }
          if (first.value.version !== undefined) return { diagnostics: first.value.diagnostics, related: related() } satisfies Reports.DiagnosticsReport
          // Version-less: later reports (semantic after syntax) replace it until the server is quiet and not busy.
          let latest = first.value
          for (;;) {
            const left = yield* clock.remaining
            const busy = instance.life.progress.size > 0
            if (left === 0) {
              return { diagnostics: latest.diagnostics, related: related(), ...(busy ? { incompleteAfter: Reports.seconds(yield* clock.waited) } : {}) } satisfies Reports.DiagnosticsReport
            }
            // Busy: the next report, or the end of the work (then the quiet window); idle: the quiet window.
            const more = busy
              ? yield* Effect.raceFirst(next(left), Effect.as(progressIdle(instance), Option.none<Published>()))
              : yield* next(Math.min(ch.settleMs, left))
            if (Option.isSome(more)) latest = more.value
            else if (!busy && instance.life.progress.size === 0) return { diagnostics: latest.diagnostics, related: related() } satisfies Reports.DiagnosticsReport
          }
        }),
      { forceChange: true }
    )
  })

/** The settled diagnostics of `doc` (see the module's comment for how each kind of server is waited for). */
export const diagnostics = (ch: Channel, instance: Instance, doc: LspDocument, changed: boolean): Effect.Effect<Reports.DiagnosticsReport, LspError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const uri = Lsp.fileUri(doc.path)
      if (changed) yield* ch.notify(instance, "workspace/didChangeWatchedFiles", { changes: [{ uri, type: 2 }] }).pipe(Effect.ignore)
      if (instance.caps.tsserver) return yield* ch.withDocument(instance, doc, () => viaTsserver(ch, instance, doc, changed), { forceChange: true })
      if (instance.caps.pull) return yield* ch.withDocument(instance, doc, () => viaPull(ch, instance, uri, changed), { forceChange: true })
      return yield* viaPublish(ch, instance, doc)
    })
  )
