/**
 * Composition: a session's settings plus the adapters it runs on, assembled into the chain. Every adapter can
 * be swapped (tests give in-memory fakes); the defaults are the real Node ones.
 */
import { Effect, Layer } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import type { AccessPolicy, PermissionMode, WorkMode } from "../domain/core/Modes.js"
import * as P from "../domain/jail/PosixPath.js"
import type { Allowlist } from "../ports/Allowlist.js"
import { Diagnostics } from "../ports/Diagnostics.js"
import type { ProtectedAliases } from "../ports/ProtectedAliases.js"
import type { Approver } from "../ports/Approver.js"
import type { BashParser } from "../ports/BashParser.js"
import type { FileSystem } from "../ports/FileSystem.js"
import { FileSystem as FileSystemTag } from "../ports/FileSystem.js"
import type { Journal } from "../ports/Journal.js"
import type { NetGuard } from "../ports/NetGuard.js"
import type { PostgresParser } from "../ports/PostgresParser.js"
import type { SandboxState } from "../ports/SandboxState.js"
import { Session } from "../ports/Session.js"
import type { SqlConnections } from "../ports/SqlConnections.js"
import type { SearchWorkers } from "../ports/SearchWorkers.js"
import type { TextSearch } from "../ports/TextSearch.js"
import type { ToolExecutor } from "../ports/ToolExecutor.js"
import * as Executor from "./Executor.js"
import * as PathResolver from "./PathResolver.js"
import { chain, gates } from "./Chain.js"

export interface SessionOptions {
  /** The workspace: the one root for the jail, execution and the journal. */
  readonly workspace: string
  readonly workMode?: WorkMode | undefined
  readonly permissionMode?: PermissionMode | undefined
  readonly policy?: AccessPolicy | undefined
  readonly sessionId?: string | undefined
  readonly turn?: number | undefined
  readonly home?: string | undefined
  readonly maxOutputBytes?: number | undefined
  readonly sqlDialect?: "sqlite" | "postgres" | "mysql" | undefined
  /** The configuration permits `bash` with `network: true` in permission mode AUTO. */
  readonly bashNetwork?: boolean | undefined
  /** Each bash command asks in permission mode AUTO, file edits do not (`mcp serve` with a client that can ask). */
  readonly bashAsks?: boolean | undefined
  /** The overall deadline of a tool call in ms (see `Deadline`; default 10 minutes). */
  readonly toolDeadlineMs?: number | undefined
}

export const defaultMaxOutputBytes = 256 * 1024

/** The session, with the workspace resolved to its canonical path (it must exist and be a directory). */
export const sessionLayer = (options: SessionOptions) =>
  Layer.effect(
    Session,
    Effect.gen(function* () {
      const absolute = P.resolve("/", options.workspace)
      const facts = yield* PathResolver.resolve("/", absolute).pipe(
        Effect.mapError((e) => new ToolFailed({ tool: "workspace", reason: `${absolute}: ${e.reason}` }))
      )
      if (facts.kind !== "directory") {
        return yield* new ToolFailed({ tool: "workspace", reason: `${absolute} is not an existing directory` })
      }
      return Session.of({
        id: options.sessionId ?? "cli",
        turn: options.turn ?? 1,
        root: facts.real,
        home: options.home,
        workMode: options.workMode ?? "DISCUSS",
        permissionMode: options.permissionMode ?? "AUTO",
        policy: options.policy,
        maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
        sqlDialect: options.sqlDialect,
        bashNetwork: options.bashNetwork,
        bashAsks: options.bashAsks,
        toolDeadlineMs: options.toolDeadlineMs
      })
    })
  )

export interface Adapters<E = never> {
  readonly fileSystem: Layer.Layer<FileSystem, E>
  readonly allowlist: Layer.Layer<Allowlist, E>
  readonly approver: Layer.Layer<Approver, E>
  /** The bash guard's parser (parse only: the judge is the domain's, run by the Guard stage). */
  readonly bashParser: Layer.Layer<BashParser, E>
  /** May depend on the session (the SQLite journal lives under the canonical workspace root). */
  readonly journal: Layer.Layer<Journal, E, Session>
  /** The SSRF guard for web_fetch (the app chooses it: the Node resolver in `NodeLayers.adapters`). */
  readonly netGuard: Layer.Layer<NetGuard, E>
  /**
   * Executors for bash, git, MCP, LSP, SQL…, and the post-write hook: a layer built over the session and the other
   * adapters (`extensionsOf` gives a fixed set without a hook). Absent: the file tools alone.
   */
  readonly extensions?: Layer.Layer<Executor.Extensions | Diagnostics, E, Session | FileSystem | Journal | SandboxState | ProtectedAliases>
  /** What the guard judges sql_query with (connections, PostgreSQL's parser); without it PostgreSQL is denied. */
  readonly sql: Layer.Layer<SqlConnections | PostgresParser, E>
  /**
   * Whether bash runs in an OS sandbox. Required: a composition without one gives `Unavailable.sandboxState` (bash
   * then asks before workspace code and dynamic words).
   */
  readonly sandboxState: Layer.Layer<SandboxState, E>
  /**
   * The external engine grep may hand its walk to (ripgrep). Required: a composition without one gives
   * `Unavailable.textSearch` (grep then always walks the tree itself, with the same results).
   */
  readonly textSearch: Layer.Layer<TextSearch, E>
  /**
   * Where grep's own search reads and matches: a worker thread a cancellation, a deadline or a signal can end
   * (`ThreadSearchWorkers`). Required: a composition without one gives `Unavailable.searchWorkers` (the search then
   * runs on the calling thread, as in-memory compositions want).
   */
  readonly searchWorkers: Layer.Layer<SearchWorkers, E>
  /**
   * Protected content under other names (hard links, protected symlinks' targets) for the jail stage and grep.
   * Required: a composition without a workspace scan gives `ProtectedAliases.nothing` (names alone are judged).
   */
  readonly aliases: Layer.Layer<ProtectedAliases, E>
}

const base = <E>(options: SessionOptions, adapters: Adapters<E>) => {
  const session = Layer.provideMerge(sessionLayer(options), adapters.fileSystem)
  const core = Layer.mergeAll(
    adapters.allowlist,
    adapters.approver,
    adapters.bashParser,
    adapters.journal,
    adapters.netGuard,
    adapters.sandboxState,
    adapters.sql,
    adapters.aliases
  )
  return Layer.provideMerge(core, session)
}

/** A fixed set of executor extensions, without a post-write hook, as the layer `Adapters.extensions` takes. */
export const extensionsOf = (extensions: ReadonlyArray<Executor.Extension>): Layer.Layer<Executor.Extensions | Diagnostics> =>
  withoutDiagnostics(Layer.succeed(Executor.Extensions, extensions))

/** An `Extensions` layer with `noDiagnostics` beside it (no post-write hook), as `Adapters.extensions` takes. */
export const withoutDiagnostics = <E, R>(extensions: Layer.Layer<Executor.Extensions, E, R>): Layer.Layer<Executor.Extensions | Diagnostics, E, R> =>
  Layer.merge(extensions, Layer.succeed(Diagnostics, Executor.noDiagnostics))

/** The executor at the end of the chain, with the session's extensions (bash, git, MCP, LSP, SQL…). */
export const executorOf = <E>(adapters: Adapters<E>): Layer.Layer<ToolExecutor, E, Session | FileSystem | Journal | SandboxState | ProtectedAliases> =>
  (adapters.extensions === undefined ? Executor.layer() : Executor.layerWith().pipe(Layer.provide(adapters.extensions))).pipe(
    Layer.provide(Layer.merge(adapters.textSearch, adapters.searchWorkers))
  )

/** The runtime chain for one session, or the given list of stages (default: the shipped `stages`) over its executor. */
export const layer = <E>(options: SessionOptions, adapters: Adapters<E>): Layer.Layer<ToolExecutor, E | ToolFailed> =>
  chain(executorOf(adapters)).pipe(Layer.provide(base(options, adapters)))

/** The session and every service the stages and executor need (for building a variant from `Chain.stages`). */
export const services = <E>(options: SessionOptions, adapters: Adapters<E>) => base(options, adapters)

/** The gates only, over a given terminal (for `policy explain`). */
export const gatesLayer =
  <E>(options: SessionOptions, adapters: Adapters<E>) =>
  (terminal: Layer.Layer<ToolExecutor>): Layer.Layer<ToolExecutor, E | ToolFailed> =>
    gates(terminal).pipe(Layer.provide(base(options, adapters)))

export { FileSystemTag }
