import { Effect, Either, Option } from "effect"
import * as Judge from "../../domain/bash/Judge.js"
import * as D from "../../domain/core/Decision.js"
import * as PgTreePolicy from "../../domain/sql/PgTreePolicy.js"
import * as SqlPolicy from "../../domain/sql/SqlPolicy.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { BashParser, type BashParserShape } from "../../ports/BashParser.js"
import { SandboxState } from "../../ports/SandboxState.js"
import * as Unsandboxed from "../../domain/bash/Unsandboxed.js"
import { NetGuard } from "../../ports/NetGuard.js"
import { PostgresParser } from "../../ports/PostgresParser.js"
import { SqlConnections } from "../../ports/SqlConnections.js"
import { Session, type SessionShape } from "../../ports/Session.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, jailContext, loadAllowlist, wrap } from "./Stage.js"

/**
 * sql_query's guard decision: connection and dialect (a configured connection, a workspace file → SQLite, else the
 * session's hint, else SQLite), the write permission, the static lexer guard, and for PostgreSQL also the walk of
 * PostgreSQL's own parse tree; both guards must allow. Without the parser installed (`Unavailable.sql`) PostgreSQL
 * is denied with that reason.
 */
const judgeSql = (
  session: SessionShape,
  connections: typeof SqlConnections.Service,
  parser: typeof PostgresParser.Service,
  call: { readonly sql: string; readonly connection?: string | undefined; readonly write?: boolean | undefined }
): Effect.Effect<D.Decision> =>
  Effect.gen(function* () {
    const judged = SqlPolicy.judgeCall(call, connections, session.sqlDialect)
    if (Either.isLeft(judged)) return judged.left
    if (!SqlPolicy.needsTree(judged.right)) return judged.right.decision
    const tree = yield* Effect.either(parser.parse(call.sql))
    if (Either.isLeft(tree)) {
      return tree.left._tag === "PostgresParserUnavailable"
        ? D.deny("guard", "sql.pg.parser-unavailable", tree.left.message)
        : SqlPolicy.unparsable(tree.left.reason)
    }
    const combined = SqlPolicy.withTree(judged.right, PgTreePolicy.judge(tree.right, { write: call.write === true, deferFunctions: SqlPolicy.defersFunctions(judged.right) }))
    return Either.isLeft(combined) ? combined.left : combined.right.decision
  })

/** Without an active sandbox, the stricter reading of `Unsandboxed` (an unparsable command asks too). */
const unsandboxedAsk = (
  state: typeof SandboxState.Service,
  parser: BashParserShape,
  command: string,
  cwd: string,
  home: string | undefined
): Effect.Effect<D.Decision | undefined> =>
  Effect.gen(function* () {
    const status = yield* state.bash
    if (status._tag === "Sandboxed") return undefined
    const ast = yield* Effect.option(parser.parse(command))
    if (Option.isNone(ast)) return D.ask("guard", Unsandboxed.Rules.dynamic, `bash runs unsandboxed here (${status.reason}) and the command could not be read again; ${Unsandboxed.installHint}`)
    return Unsandboxed.judge(ast.value, { cwd, home, why: status.reason })
  })

/**
 * bash's guard decision: the pure judge over trees from the BashParser port (the command and every nested shell
 * text the judge reaches; a text that does not parse is unknown to the judge, which fails closed). Without a
 * parser installed, bash is denied with that reason.
 */
const judgeBash = (parser: BashParserShape, command: string, ctx: Judge.GuardContext): Effect.Effect<Judge.GuardResult> =>
  Judge.judgeWith(command, ctx, (source) =>
    parser.parse(source).pipe(Effect.catchTag("BashParseError", (e) => (e.reason === "unavailable" ? Effect.fail(e) : Effect.succeed(undefined))))
  ).pipe(
    Effect.catchTag("BashParseError", () =>
      Effect.succeed({ decision: D.deny("guard", "guard.unavailable", "the bash guard is not installed, so no command can be judged safe"), allowlisted: false })
    )
  )

/**
 * Guard: bash commands judged on their syntax tree (`judgeBash`); allowlist matches can turn an ask into
 * allow. sql_query judged by `judgeSql` (in every policy: read-only is about the database, not the jail).
 * `web_fetch` URLs judged by the SSRF guard (the NetGuard port), resolving names as the real call will (the
 * connection itself is pinned and checked again by the fetch).
 */
const guarded: ReadonlySet<string> = new Set(["bash", "sql_query", "web_fetch"])

export const GuardStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const bashParser = yield* BashParser
    const net = yield* NetGuard
    const store = yield* AllowlistStore
    const connections = yield* SqlConnections
    const parser = yield* PostgresParser
    // Required: a composition without an OS sandbox provides `Unavailable.sandboxState` (it says so, fail closed).
    const sandboxState = yield* SandboxState
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
              const judged = yield* judgeBash(bashParser, call.args.command, {
                jail: ctx,
                cwd,
                allowlist,
                requireAllowlist: session.policy === "allowlist",
                network: call.args.network === true
              })
              if (D.isDeny(judged.decision)) return yield* denied(inv, judged.decision)
              const permission =
                inv.permission.decision === "ask" && judged.allowlisted
                  ? D.allow("permission", "allowlist.saved", "every command matches a saved approval")
                  : inv.permission
              // No OS sandbox: what static analysis cannot know asks (allow-all and saved approvals still say yes).
              const unsandboxed =
                permission.decision === "allow" && session.policy !== "allow-all" && !judged.allowlisted
                  ? yield* unsandboxedAsk(sandboxState, bashParser, call.args.command, cwd, session.home)
                  : undefined
              if (unsandboxed !== undefined) return yield* next({ ...inv, permission: unsandboxed, decisions: [...inv.decisions, judged.decision, unsandboxed] })
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, judged.decision], bashUnmatched: judged.unmatched })
            })
    })
  })
)
