/**
 * The chain: Permission → Jail → Bash Guard → Argument Validation → Approval → Journal → Executor. Each stage is a
 * Layer that wraps the next ToolExecutor; every decision is a pure domain function. Nothing with a side effect
 * (a write, a spawn, a network call, a state change) runs before Permission and Jail have allowed the call; the
 * operator is asked only once every gate has passed, so nobody approves what would be denied anyway.
 */
import { Cause, Effect, Either, Layer, Option, Ref } from "effect"
import * as Edit from "../domain/files/Edit.js"
import * as Allowlist from "../domain/core/Allowlist.js"
import * as D from "../domain/core/Decision.js"
import { ToolDenied, ToolFailed } from "../domain/core/Errors.js"
import * as Jail from "../domain/jail/Jail.js"
import * as Policy from "../domain/core/Policy.js"
import * as PgTreePolicy from "../domain/sql/PgTreePolicy.js"
import * as P from "../domain/jail/PosixPath.js"
import * as SqlPolicy from "../domain/sql/SqlPolicy.js"
import { approvalName, type Facts, nameOf } from "../domain/core/Tools.js"
import { validate } from "../domain/core/Validate.js"
import { Allowlist as AllowlistStore } from "../ports/Allowlist.js"
import { Approver } from "../ports/Approver.js"
import { BashGuard } from "../ports/BashGuard.js"
import { FileSystem } from "../ports/FileSystem.js"
import { Journal, type Snapshot as JournalSnapshot } from "../ports/Journal.js"
import { MutationDone } from "../ports/MutationDone.js"
import { NetGuard } from "../ports/NetGuard.js"
import { PostgresParser } from "../ports/PostgresParser.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import { Session, type SessionShape } from "../ports/Session.js"
import { type Invocation, ToolExecutor } from "../ports/ToolExecutor.js"
import * as PathResolver from "./PathResolver.js"
import * as Subtree from "./Subtree.js"

const denied = (inv: Invocation, d: D.Decision) =>
  new ToolDenied({ tool: nameOf(inv.facts.call), stage: d.stage, rule: d.rule, reason: d.reason })

const wrap = <R>(
  around: (next: (inv: Invocation) => ReturnType<typeof ToolExecutor.Service.run>) => Effect.Effect<typeof ToolExecutor.Service, never, R>
) =>
  Layer.effect(
    ToolExecutor,
    Effect.flatMap(ToolExecutor, (next) => around(next.run))
  )

export const jailContext = (session: SessionShape): Jail.JailContext => ({
  root: session.root,
  ...(session.home === undefined ? {} : { home: session.home }),
  unrestricted: session.policy === "unrestricted"
})

const loadAllowlist = (store: typeof AllowlistStore.Service) =>
  store.entries.pipe(Effect.mapError((e) => new ToolFailed({ tool: "allowlist", reason: e.reason })))

/** Permission: work mode, access policy and permission mode. Pure; touches nothing. */
export const PermissionStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const store = yield* AllowlistStore
    return ToolExecutor.of({
      run: (inv) =>
        Effect.flatMap(loadAllowlist(store), (allowlist) => {
          const decision = Policy.evaluate({ ...session, allowlist }, inv.facts)
          return D.isDeny(decision)
            ? Effect.fail(denied(inv, decision))
            : next({ ...inv, permission: decision, decisions: [...inv.decisions, decision] })
        })
    })
  })
)

/** Jail: every path argument resolved (lstat/readlink only) and judged; the facts travel on to the executor. */
export const JailStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const fs = yield* FileSystem
    const ctx = jailContext(session)
    const resolve = PathResolver.resolveWith(fs)
    return ToolExecutor.of({
      run: (inv) =>
        Effect.gen(function* () {
          const resolved: Record<string, Jail.PathFacts> = {}
          for (const use of inv.facts.paths) {
            const facts = yield* resolve(session.root, use.path, session.root, session.home).pipe(
              Effect.catchTag("FsError", (e) =>
                Effect.fail(
                  denied(inv, D.deny("jail", e.code === "ELOOP" ? "jail.symlink-loop" : "jail.unresolvable", `${use.path}: ${e.reason}`))
                )
              )
            )
            const verdict = Jail.check(ctx, facts, use.access)
            if (!verdict.ok) return yield* denied(inv, D.deny("jail", verdict.rule, `${use.field}: ${verdict.reason}`))
            resolved[use.field] = facts
          }
          // A folder moved, removed or replaced is judged with everything in it (and, moved, where it lands).
          for (const use of inv.facts.paths) {
            const facts = resolved[use.field]
            if (use.access !== "structure" || facts === undefined) continue
            const landing = use.landsAt === undefined ? undefined : resolved[use.landsAt]
            const bases = landing === undefined ? [facts.entry] : [facts.entry, landing.entry]
            const shown = `${use.field}: ${Jail.display(ctx, facts.entry)}`
            const judged = yield* Subtree.judge(fs, facts.entry, (rel) => Jail.checkContents(ctx, Jail.display(ctx, facts.entry), bases, rel)).pipe(
              Effect.catchTag("FsError", (e) => Effect.fail(denied(inv, D.deny("jail", "jail.unresolvable", `${shown}: cannot list what it holds: ${e.reason}`))))
            )
            if (judged._tag === "Refused") return yield* denied(inv, D.deny("jail", judged.verdict.rule, `${use.field}: ${judged.verdict.reason}`))
            if (judged._tag === "TooLarge") {
              return yield* denied(inv, D.deny("jail", "jail.subtree-too-large", `${shown} holds more than ${judged.limit} entries: too many to check that none is protected`))
            }
          }
          return yield* next({
            ...inv,
            resolved,
            decisions: [...inv.decisions, D.allow("jail", "jail.inside", "every path stays inside the jail")]
          })
        })
    })
  })
)

/**
 * sql_query's guard decision: connection and dialect (a configured connection, a workspace file → SQLite, else the
 * session's hint, else SQLite), the write permission, the static lexer guard, and for PostgreSQL also the walk of
 * PostgreSQL's own parse tree; both guards must allow. Without the parser installed PostgreSQL is denied.
 */
const judgeSql = (
  session: SessionShape,
  connections: Option.Option<typeof SqlConnections.Service>,
  parser: Option.Option<typeof PostgresParser.Service>,
  call: { readonly sql: string; readonly connection?: string | undefined; readonly write?: boolean | undefined }
): Effect.Effect<D.Decision> =>
  Effect.gen(function* () {
    const judged = SqlPolicy.judgeCall(call, Option.getOrElse(connections, () => ({})), session.sqlDialect)
    if (Either.isLeft(judged)) return judged.left
    if (!SqlPolicy.needsTree(judged.right)) return judged.right.decision
    if (Option.isNone(parser)) return D.deny("guard", "sql.pg.parser-unavailable", "PostgreSQL's parser is not installed in this build")
    const tree = yield* Effect.either(parser.value.parse(call.sql))
    if (Either.isLeft(tree)) return SqlPolicy.unparsable(tree.left.reason)
    const combined = SqlPolicy.withTree(judged.right, PgTreePolicy.judge(tree.right, { write: call.write === true }))
    return Either.isLeft(combined) ? combined.left : combined.right.decision
  })

/**
 * Guard: bash commands judged on their syntax tree (the BashGuard port); allowlist matches can turn an ask into
 * allow. sql_query judged by `judgeSql` (in every policy: read-only is about the database, not the jail).
 * `web_fetch` URLs judged by the SSRF guard (the NetGuard port), resolving names as the real call will (the
 * connection itself is pinned and checked again by the fetch).
 */
const guarded: ReadonlySet<string> = new Set(["bash", "sql_query", "web_fetch"])

export const GuardStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const guard = yield* BashGuard
    const net = yield* NetGuard
    const store = yield* AllowlistStore
    const connections = yield* Effect.serviceOption(SqlConnections)
    const parser = yield* Effect.serviceOption(PostgresParser)
    const ctx = jailContext(session)
    return ToolExecutor.of({
      run: (inv) =>
        // Only bash, sql_query and web_fetch have a guard; everything else passes straight on.
        !guarded.has(inv.facts.call.tool)
          ? next(inv)
          : Effect.gen(function* () {
              const call = inv.facts.call
              if (call.tool === "web_fetch") {
                const checked = yield* net.check(call.args.url)
                if (D.isDeny(checked.decision)) return yield* denied(inv, checked.decision)
                return yield* next({ ...inv, decisions: [...inv.decisions, checked.decision] })
              }
              if (call.tool === "sql_query") {
                const decision = yield* judgeSql(session, connections, parser, call.args)
                if (D.isDeny(decision)) return yield* denied(inv, decision)
                return yield* next({ ...inv, decisions: [...inv.decisions, decision] })
              }
              if (call.tool !== "bash" || session.policy === "unrestricted") return yield* next(inv)
              const allowlist = yield* loadAllowlist(store)
              const cwd = inv.resolved["cwd"]?.real ?? session.root
              const judged = yield* guard.judge({
                command: call.args.command,
                cwd,
                jail: ctx,
                allowlist,
                requireAllowlist: session.policy === "allowlist",
                network: call.args.network === true
              })
              if (D.isDeny(judged.decision)) return yield* denied(inv, judged.decision)
              const permission =
                inv.permission.decision === "ask" && judged.allowlisted
                  ? D.allow("permission", "allowlist.saved", "every command matches a saved approval")
                  : inv.permission
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, judged.decision] })
            })
    })
  })
)

/** Validation: what the Schema cannot say (an empty old_string, an invalid regex…). */
export const ValidationStage = wrap((next) =>
  Effect.succeed(
    ToolExecutor.of({
      run: (inv) => {
        const problem = validate(inv.facts.call)
        return problem === undefined ? next(inv) : Effect.fail(denied(inv, problem))
      }
    })
  )
)

const summary = (facts: Facts): string => {
  const call = facts.call
  if (call.tool === "bash") return `$ ${call.args.command}`
  if (call.tool === "sql_query") {
    const params = call.args.params === undefined ? "" : ` with parameters ${JSON.stringify(call.args.params)}`
    return `${call.args.write === true ? "WRITE " : ""}SQL on ${call.args.connection ?? "the default connection"}${params}:\n${call.args.sql}`
  }
  if (call.tool === "mcp_dynamic") return `${call.name} ${JSON.stringify(call.args)}`
  const paths = facts.paths.map((p) => p.path)
  return paths.length > 0 ? `${nameOf(call)} ${paths.join(" → ")}` : `${nameOf(call)} ${JSON.stringify(call.args)}`
}

/** The entry an "always" answer saves: the exact tool (an MCP call keeps its server.tool), never a wildcard. */
const entryFor = (facts: Facts): Allowlist.AllowEntry => ({ tool: approvalName(facts.call) })

/** Approval: an "ask" that survived every gate goes to the operator; without one it is a deny. */
export const ApprovalStage = wrap((next) =>
  Effect.gen(function* () {
    const approver = yield* Approver
    const store = yield* AllowlistStore
    return ToolExecutor.of({
      run: (inv) =>
        inv.permission.decision !== "ask"
          ? next(inv)
          : Effect.gen(function* () {
              const answer = yield* approver.ask({ tool: nameOf(inv.facts.call), summary: summary(inv.facts), decision: inv.permission })
              if (answer === "no") {
                return yield* denied(inv, D.deny("permission", "approval.declined", `${inv.permission.reason}; the operator said no (or nobody could be asked)`))
              }
              if (answer === "always" && inv.facts.call.tool !== "bash") {
                yield* store.add(entryFor(inv.facts)).pipe(Effect.mapError((e) => new ToolFailed({ tool: "allowlist", reason: e.reason })))
              }
              const permission = D.allow("permission", "approval.granted", "the operator approved this call")
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, permission] })
            })
    })
  })
)

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export const canonicalArgs = (inv: Invocation): string =>
  canonical({ tool: nameOf(inv.facts.call), args: inv.facts.call.args })

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * What a file tool will leave, known before it runs: it lets recovery and undo accept a call that crashed after
 * its effect. Unknown (bash, git, a failing edit) is simply absent.
 */
const intendedOf = (inv: Invocation, before: ReadonlyMap<string, JournalSnapshot>, shown: (field: string) => string | undefined) => {
  const call = inv.facts.call
  const at = (field: string) => {
    const path = shown(field)
    return path === undefined ? undefined : { path, before: before.get(path) }
  }
  switch (call.tool) {
    case "write_file": {
      const p = at("path")
      return p === undefined ? [] : [{ path: p.path, content: encoder.encode(call.args.content), mode: p.before?.mode ?? 0o644 }]
    }
    case "delete_file": {
      const p = at("path")
      return p === undefined ? [] : [{ path: p.path, content: null, mode: null }]
    }
    case "edit_file": {
      const p = at("path")
      const content = p?.before?.content
      if (p === undefined || content === null || content === undefined) return []
      const edited = Edit.apply(decoder.decode(content), call.args.old_string, call.args.new_string, call.args.replace_all === true)
      return Either.isRight(edited) ? [{ path: p.path, content: encoder.encode(edited.right.after), mode: p.before?.mode ?? null }] : []
    }
    case "move_file": {
      const from = at("from")
      const to = at("to")
      if (from === undefined || to === undefined || from.before?.content == null) return []
      return [
        { path: from.path, content: null, mode: null },
        { path: to.path, content: from.before.content, mode: from.before.mode }
      ]
    }
    default:
      return []
  }
}

/** Journal: a mutating call is recorded pending before its effect and committed / failed / unknown after it. */
export const JournalStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const journal = yield* Journal
    const fs = yield* FileSystem
    const journalError = (e: { readonly reason: string }) => new ToolFailed({ tool: "journal", reason: e.reason })
    const snapshot = (facts: Jail.PathFacts): Effect.Effect<JournalSnapshot, ToolFailed> => {
      const path = Jail.display(session, facts.entry)
      if (facts.kind !== "file") return Effect.succeed({ path, content: null, mode: null })
      // The mode is the one the jail saw; the write itself re-checks that the file is still the one the jail saw.
      return fs.readFile(facts.real).pipe(
        Effect.map((content) => ({ path, content, mode: facts.mode })),
        // Without the old content, undo could not restore it: refuse rather than mutate unrecoverably.
        Effect.mapError((e) => new ToolFailed({ tool: "journal", reason: `cannot snapshot ${path} before changing it: ${e.reason}` }))
      )
    }
    return ToolExecutor.of({
      run: (inv) =>
        !inv.facts.mutates
          ? next(inv)
          : Effect.gen(function* () {
              const writes = inv.facts.paths.filter((p) => p.access !== "read").flatMap((p) => {
                const facts = inv.resolved[p.field]
                return facts === undefined ? [] : [{ field: p.field, facts }]
              })
              // In order, one after the other (a call writes one or two paths: no need for forEach's machinery).
              const snapshots = yield* writes.reduce<Effect.Effect<ReadonlyArray<JournalSnapshot>, ToolFailed>>(
                (taken, w) => Effect.flatMap(taken, (done) => Effect.map(snapshot(w.facts), (s) => [...done, s])),
                Effect.succeed([])
              )
              const byPath = new Map(snapshots.map((s) => [s.path, s] as const))
              const shown = (field: string) => {
                const facts = inv.resolved[field]
                return facts === undefined ? undefined : Jail.display(session, facts.entry)
              }
              const record = yield* journal
                .begin(
                  {
                    session: session.id,
                    turn: session.turn,
                    tool: nameOf(inv.facts.call),
                    capability: inv.facts.capability,
                    paths: snapshots.map((s) => s.path),
                    canonicalArgs: inv.canonicalArgs ?? canonicalArgs(inv),
                    requestId: inv.requestId,
                    remote: inv.facts.capability === "external"
                  },
                  snapshots,
                  intendedOf(inv, byPath, shown)
                )
                .pipe(Effect.mapError(journalError))
              // Settled once: early by the executor (MutationDone) when the mutation is done before the call ends.
              const settled = yield* Ref.make(false)
              const once = (settle: Effect.Effect<void>) => Effect.flatMap(Ref.getAndSet(settled, true), (was) => (was ? Effect.void : settle))
              const done = MutationDone.of({
                done: ({ isError }) => once(journal.complete(record.id, isError ? "failed" : "committed").pipe(Effect.ignore))
              })
              return yield* next(inv).pipe(
                Effect.provideService(MutationDone, done),
                Effect.onExit((exit) => {
                  if (exit._tag === "Success") {
                    return once(journal.complete(record.id, exit.value.isError === true ? "failed" : "committed").pipe(Effect.ignore))
                  }
                  const interrupted = Cause.isInterruptedOnly(exit.cause)
                  const failedCleanly = Cause.failureOption(exit.cause).pipe(
                    Option.map((e) => e._tag === "ToolDenied" || e._tag === "InvalidArguments" || (e._tag === "ToolFailed" && inv.facts.capability !== "exec" && inv.facts.capability !== "external")),
                    Option.getOrElse(() => false)
                  )
                  const note = !interrupted
                    ? Cause.pretty(exit.cause).split("\n")[0]
                    : inv.facts.capability === "external"
                      ? "interrupted: cancellation sent to the server, which may already have acted"
                      : "interrupted"
                  // A file tool that failed before writing left nothing; anything else may have happened halfway.
                  return once(journal.complete(record.id, failedCleanly ? "failed" : "unknown", note).pipe(Effect.ignore))
                })
              )
            })
    })
  })
)

/** The gates alone, over whatever `terminal` executor: the runtime chain and `policy explain` share them. */
export const gates = <E, R>(terminal: Layer.Layer<ToolExecutor, E, R>) =>
  PermissionStage.pipe(
    Layer.provide(JailStage),
    Layer.provide(GuardStage),
    Layer.provide(ValidationStage),
    Layer.provide(terminal)
  )

/** The whole runtime chain over the executor. */
export const chain = <E, R>(executor: Layer.Layer<ToolExecutor, E, R>) =>
  gates(ApprovalStage.pipe(Layer.provide(JournalStage), Layer.provide(executor)))

/** The chain without its journal stage: only for measuring what the journal costs (bench/kernel.bench.ts). */
export const unjournaledChain = <E, R>(executor: Layer.Layer<ToolExecutor, E, R>) =>
  gates(ApprovalStage.pipe(Layer.provide(executor)))

export const workspaceRelative = (session: Pick<SessionShape, "root">, absolute: string) =>
  P.isInside(session.root, absolute) ? P.relative(session.root, absolute) : absolute
