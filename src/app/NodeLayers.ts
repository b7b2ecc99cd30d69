/**
 * The real adapters a session runs on, in one place: the CLI, `mcp serve` and the runTool API all start here and
 * replace what they need (the approver, the allowlist store, a fake for tests).
 */
import * as NodeConfig from "../adapters/config/NodeConfig.js"
import type { Options as McpClientOptions } from "../adapters/mcp/SdkMcpTransport.js"
import { Context, Effect, Layer, Option, Scope } from "effect"
import * as Approvers from "../adapters/approval/Approvers.js"
import * as HistoryStore from "../adapters/fs/HistoryStore.js"
import * as StateDir from "../adapters/fs/StateDir.js"
import * as BwrapSandbox from "../adapters/shell/BwrapSandbox.js"
import * as SecretObjects from "../adapters/shell/SecretObjects.js"
import * as ToolchainCachesOnHost from "../adapters/shell/ToolchainCachesOnHost.js"
import * as StoreSecrets from "../adapters/shell/StoreSecrets.js"
import * as HostLaunch from "../domain/core/HostLaunch.js"
import * as Aliases from "../domain/jail/Aliases.js"
import * as ScanAliasesLayer from "../adapters/shell/ProtectedAliasesScan.js"
import * as WatchedScan from "../adapters/shell/WatchedScan.js"
import * as MemoryAllowlist from "../adapters/approval/MemoryAllowlist.js"
import * as MemoryJournal from "../adapters/journal/MemoryJournal.js"
import * as NodeFileSystem from "../adapters/fs/NodeFileSystem.js"
import * as RipgrepSearch from "../adapters/search/RipgrepSearch.js"
import * as NodeNetGuard from "../adapters/net/NetGuard.js"
import * as LibpgQueryParser from "../adapters/sql/LibpgQueryParser.js"
import * as NodeShell from "../adapters/shell/NodeShell.js"
import * as NodeSqlEngine from "../adapters/sql/NodeSqlEngine.js"
import * as SandboxedShell from "../adapters/shell/SandboxedShell.js"
import * as StagedShell from "../adapters/staged/StagedShell.js"
import type { AllowEntry } from "../domain/core/Allowlist.js"
import type { ServerEntry } from "../domain/core/Config.js"
import { ToolFailed, Unavailable } from "../domain/core/Errors.js"
import * as UnavailableAdapters from "../adapters/Unavailable.js"
import { defaultLimits, type Limits } from "../domain/sandbox/SandboxProfile.js"
import type { Connections } from "../domain/sql/SqlConnection.js"
import { Sandbox, type SandboxMode, type SandboxStatus } from "../ports/Sandbox.js"
import { TextSearchError } from "../ports/TextSearch.js"
import { BashParser } from "../ports/BashParser.js"
import { type BashSandboxing, SandboxState } from "../ports/SandboxState.js"
import * as Unsandboxed from "../domain/bash/Unsandboxed.js"
import { Diagnostics } from "../ports/Diagnostics.js"
import { Journal, type JournalError } from "../ports/Journal.js"
import type { Launcher } from "../ports/Launcher.js"
import { Session } from "../ports/Session.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import * as BashTool from "../tools/BashTool.js"
import { type Extension, Extensions, noDiagnostics } from "../kernel/Executor.js"
import * as GitTools from "../tools/GitTools.js"
import * as Lazy from "../kernel/Lazy.js"
import * as RepoMap from "../tools/RepoMapTool.js"
import { grepWorkerScript, thisProgram } from "./Program.js"
import * as ThreadSearchWorkers from "../adapters/search/ThreadSearchWorkers.js"
import type { SearchWorkers } from "../ports/SearchWorkers.js"
import * as RepoMapWorker from "./RepoMapWorker.js"
import * as Kernel from "../kernel/Kernel.js"
import type { Adapters } from "../kernel/Kernel.js"
import * as SqlSchemaTool from "../tools/SqlSchemaTool.js"
import * as SqlTool from "../tools/SqlTool.js"

/**
 * The SQLite journal at `<workspace>/.minicode/state.db`, loaded on first use only: commands that never mutate
 * (explain, conformance, doctor) do not pay for SQLite.
 */
export const sqliteJournal = Layer.scoped(
  Journal,
  Effect.gen(function* () {
    const session = yield* Session
    const scope = yield* Effect.scope
    // Opened (and integrity-checked) when the first call needs it, in the session's scope: a session that only
    // reads never opens it, and `mcp serve` answers its first tools/list without waiting for SQLite.
    const lazy = yield* Lazy.lazily(
      Effect.promise(() => import("../adapters/journal/SqliteJournal.js")).pipe(
        Effect.flatMap((SqliteJournal) => Layer.build(SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(session.root) }))),
        Effect.map((context) => Context.get(context, Journal)),
        Scope.extend(scope)
      )
    )
    const journal = lazy.get
    // A question to a journal never made (no `.minicode/state.db`) has an empty journal's answer, and does not make
    // it: `mcp serve` asks for a mutating call's earlier record before the gates, and a refused call leaves nothing.
    const asked = <A>(empty: A, ask: (j: Journal["Type"]) => Effect.Effect<A, JournalError>) =>
      Effect.flatMap(lazy.made, (made) =>
        Option.isNone(made) && !StateDir.hasJournal(session.root) ? Effect.succeed(empty) : Effect.flatMap(journal, ask)
      )
    return Journal.of({
      begin: (intent, snapshots, intended) => Effect.flatMap(journal, (j) => j.begin(intent, snapshots, intended)),
      complete: (id, state, note) => Effect.flatMap(journal, (j) => j.complete(id, state, note)),
      finalizeTurn: (s, turn) => Effect.flatMap(journal, (j) => j.finalizeTurn(s, turn)),
      findByRequest: (s, requestId) => asked(Option.none(), (j) => j.findByRequest(s, requestId)),
      answered: (s, requestId) => asked(undefined, (j) => j.answered(s, requestId)),
      lastFinalizedTurn: (s) => asked(0, (j) => j.lastFinalizedTurn(s)),
      lastTurn: (s) => asked(0, (j) => j.lastTurn(s)),
      list: (filter) => asked([], (j) => j.list(filter)),
      recover: Effect.flatMap(journal, (j) => j.recover),
      resolve: (seq, outcome, by) => Effect.flatMap(journal, (j) => j.resolve(seq, outcome, by)),
      // A journal nobody opened has nothing to tidy: a quiet moment does not open it.
      idle: Effect.flatMap(lazy.made, (j) => (Option.isSome(j) ? j.value.idle : Effect.void))
    })
  })
)

/** The bash guard's parser on tree-sitter-bash, loaded on first use (the native parser is the heaviest code). */
export const treeSitterParser = Layer.effect(
  BashParser,
  Effect.map(
    Lazy.onFirstUse(Effect.flatMap(Effect.promise(() => import("../adapters/treesitter/TreeSitterBashParser.js")), (m) => m.makeParser)),
    (parser) => BashParser.of({ parse: (command) => Effect.flatMap(parser, (p) => p.parse(command)) })
  )
)

/**
 * Whether bash runs sandboxed, as `bashShell` will run it: mode `none` (or no sandbox options) never; `bwrap`
 * always (bash is refused without one); `auto` when the probe (run on first use, once) finds bubblewrap usable.
 */
export const sandboxState = (sandbox?: SandboxOptions) =>
  Layer.effect(
    SandboxState,
    Effect.map(
      Effect.cached(
        sandbox === undefined || sandbox.mode === "none"
          ? Effect.succeed<BashSandboxing>({ _tag: "Unsandboxed", reason: "disabled by configuration (sandbox: none)" })
          : sandbox.mode === "bwrap"
            ? Effect.succeed<BashSandboxing>({ _tag: "Sandboxed" })
            : Effect.map(BwrapSandbox.make(sandbox.bwrap), (s): BashSandboxing =>
                s.status._tag === "Available" ? { _tag: "Sandboxed" } : { _tag: "Unsandboxed", reason: s.status.reason }
              )
      ),
      (bash) => SandboxState.of({ bash })
    )
  )

/**
 * Builds something on first use only, inside the scope it is created in (so servers it starts close with the
 * session): start-up pays nothing for tools a session never calls.
 */
const onFirstUse = <A, R>(build: Effect.Effect<A, never, R | Scope.Scope>) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    return yield* Lazy.onFirstUse(build.pipe(Scope.extend(scope), Effect.provide(context)))
  })

/**
 * Starts configured MCP and language servers: as configured, or — for an entry with `sandbox: true` — inside a
 * bubblewrap profile of their own (workspace read-only, secrets masked, no network). Such a server is refused
 * when no sandbox can be made. Language servers without a `sandbox` setting ask for "when-available": inside the
 * profile whenever bubblewrap is usable, else as configured. The probe runs when the first such server starts.
 * One started on the host has its package runner kept from taking the workspace for its project (HostLaunch).
 */
export const serverLauncher = (
  root: string,
  bwrap?: BwrapSandbox.Options,
  whenAvailable = true,
  /** The git folders whose object stores a server must not see either (a history holding a protected file). */
  hideObjects: Effect.Effect<GitTools.SecretHistory> = Effect.succeed(undefined)
) =>
  Effect.map(
    Effect.zip(Effect.cached(BwrapSandbox.make(bwrap)), Effect.cached(ToolchainCachesOnHost.find(process.env, bwrap?.hostHome ?? process.env["HOME"]))),
    ([sandbox, toolchainCaches]): Launcher =>
      (request) =>
        request.sandbox === false || (request.sandbox === "when-available" && !whenAvailable)
          ? Effect.succeed({ argv: HostLaunch.onHost(request.argv), env: HostLaunch.envOnHost(request.argv, request.env) })
          : Effect.flatMap(sandbox, (s) =>
              request.sandbox === "when-available" && (!whenAvailable || s.status._tag !== "Available")
                ? Effect.succeed({ argv: HostLaunch.onHost(request.argv), env: HostLaunch.envOnHost(request.argv, request.env) })
                : Effect.zip(hideObjects, request.toolchainCaches === true ? toolchainCaches : Effect.succeed(undefined)).pipe(
                    Effect.flatMap(([hidden, caches]) =>
                      s.wrap({
                        command: request.argv,
                        bindCommand: true,
                        workspace: root,
                        cwd: root,
                        writable: false,
                        network: request.network,
                        // A language server's toolchain caches (Go's module cache…), read-only, never credentials.
                        env: { ...(caches?.env ?? {}), ...request.env },
                        ...(caches === undefined ? {} : { readOnly: caches.folders }),
                        ...(hidden === undefined ? {} : { hideGitObjects: hidden.gitDirs })
                      })
                    ),
                    Effect.map((wrapped) => ({ ...wrapped, ownPidNamespace: true }))
                  )
            ).pipe(Effect.mapError((e) => new ToolFailed({ tool: "sandbox", reason: `cannot start the server in its sandbox: ${e.reason}` })))
  )

/**
 * The history check the servers' sandbox needs, for a process that runs language servers outside a session (the
 * LSP broker): the git tools' own check (`secretHistory`), on the workspace `root`, through the same runners.
 */
export const serverHistoryCheck = (root: string, options: { readonly unrestricted: boolean; readonly sandboxed: boolean }) =>
  Effect.map(
    Effect.flatMap(gitRunners({ unrestricted: options.unrestricted, sandbox: { mode: options.sandboxed ? "auto" : "none" } }), GitTools.makeTools),
    (git) => git.secretHistory
  ).pipe(
    Effect.provide(
      Layer.provideMerge(
        Kernel.sessionLayer({ workspace: root }),
        Layer.merge(NodeFileSystem.layer, NodeShell.layer({ unrestricted: options.unrestricted }))
      )
    )
  )

const mcpToolNames = new Set(["mcp_list", "mcp_call", "mcp_read", "mcp_prompt", "mcp_dynamic", "web_fetch"])

/** An extension whose real one is built on the first call of one of its tools. */
const deferred = (owns: (tool: string) => boolean, real: Effect.Effect<Extension>): Extension => (inv) =>
  owns(inv.facts.call.tool)
    ? Effect.flatMap(real, (extension) => extension(inv) ?? Effect.fail(new Unavailable({ port: inv.facts.call.tool, reason: "no executor handles it" })))
    : undefined

/** What the guard stage needs to judge sql_query: the configured connections and PostgreSQL's parser. */
export const sqlGuard = (connections: Connections = {}) =>
  Layer.merge(Layer.succeed(SqlConnections, connections), LibpgQueryParser.layer)

export interface SandboxOptions {
  /** `auto`: bwrap when usable, else unsandboxed; `bwrap`: sandbox or refuse bash; `none` (the default here): off. */
  readonly mode: SandboxMode
  readonly limits?: Limits | undefined
  readonly bwrap?: BwrapSandbox.Options | undefined
}

/** The shell `bash` runs on: the sandboxed one unless the mode is `none`. */
export const bashShell = (options: {
  readonly unrestricted: boolean
  readonly sandbox?: SandboxOptions | undefined
  /** What the session's scopes let staged bash change (mcp serve's `--scope`). */
  readonly writable?: { readonly files: boolean; readonly git: boolean } | undefined
}) => {
  const sandbox = options.sandbox
  if (sandbox?.mode === "none") return SandboxedShell.announced("disabled by configuration (sandbox: none)").pipe(Layer.provide(NodeShell.layer(options)))
  // bash on a staged view (issue 41): its writes reach the tree only through the merge.
  if (sandbox !== undefined && StagedShell.wanted()) {
    return StagedShell.layer({ mode: sandbox.mode, unrestricted: options.unrestricted, limits: sandbox.limits ?? defaultLimits, ...(options.writable === undefined ? {} : { writable: options.writable }) }).pipe(
      Layer.provide(BwrapSandbox.layer(sandbox.bwrap))
    )
  }
  return sandbox === undefined
    ? NodeShell.layer(options)
    : SandboxedShell.layer({ mode: sandbox.mode, unrestricted: options.unrestricted, limits: sandbox.limits ?? defaultLimits, warnUnsandboxed: true }).pipe(
        Layer.provide(BwrapSandbox.layer(sandbox.bwrap))
      )
}

/**
 * Where the git tools run: reads in the read-only profile (workspace read-only, secrets masked, no network, empty
 * home) and git_commit in bash's profile (workspace writable, `.git/config` and hooks read-only), both built on
 * first use from one probe; the host shell when the mode is `none`.
 */
export const gitRunners = (options: { readonly unrestricted: boolean; readonly sandbox?: SandboxOptions | undefined }) =>
  Effect.gen(function* () {
    const sandbox = options.sandbox
    if (sandbox === undefined || sandbox.mode === "none") return undefined
    const mode = sandbox.mode
    const session = yield* Session
    const probed = yield* Effect.cached(BwrapSandbox.make(sandbox.bwrap))
    const shell = (writable: boolean) =>
      Effect.cached(
        Effect.flatMap(probed, (s) =>
          SandboxedShell.make({ mode, unrestricted: options.unrestricted, limits: sandbox.limits ?? defaultLimits, writable, gitTool: true }).pipe(
            Effect.provideService(Sandbox, s),
            Effect.provideService(Session, session)
          )
        )
      )
    // The scan the sandbox makes (the same cache): the protected files' current contents, as bash's store check
    // hashes them, beside every protected content remembered.
    const scanner = sandbox.bwrap?.scan ?? WatchedScan.shared
    const protectedIds = Effect.flatMap(scanner.scan(session.root), (hits) =>
      Effect.catchAllDefect(SecretObjects.protectedIds(session.root, hits), () =>
        Effect.sync(() => {
          try {
            const made = StoreSecrets.madeIds(session.root)
            return new Set([...SecretObjects.maskedIds(hits), ...StoreSecrets.remembered(session.root)].filter((id) => !made.has(id)))
          } catch {
            return new Set<string>()
          }
        })
      )
    )
    // The full answer (hard links searched too): a path that is a protected file's second name is secret history.
    const aliases = scanner.protectedIn(session.root).pipe(Effect.catchAllDefect(() => Effect.succeed(Aliases.none)))
    const runners: GitTools.Runners = { read: yield* shell(false), commit: yield* shell(true), protectedIds, history: HistoryStore.make(session.root), aliases }
    return runners
  })

/** What the sandbox probe finds, for doctor and the `mcp serve` instructions. */
export const sandboxStatus = (options: Pick<SandboxOptions, "mode" | "bwrap">) =>
  options.mode === "none"
    ? Effect.succeed({ _tag: "Unavailable" as const, reason: "disabled by configuration (sandbox: none)" })
    : Effect.map(BwrapSandbox.make(options.bwrap), (s) => s.status)

/** The sandbox's once-per-process walk for host files private to their owner, started on the first idle moment. */
export const prewarmSandbox = BwrapSandbox.prewarm

/** One plain line for doctor and the `mcp serve` instructions: is bash sandboxed, and if not, why not. */
export const sandboxLine = (mode: SandboxMode, status: SandboxStatus): string => {
  if (status._tag === "Available") {
    const limits = status.limits.processLimit
      ? "resource limits on"
      : status.limits.prlimit
        ? "CPU/file/memory limits on, process-count limit NOT enforced (running as root without a writable pids cgroup)"
        : "resource limits NOT enforced (prlimit missing)"
    return `sandbox: bash runs inside ${status.version} (mode ${mode}): workspace read-write, secrets (at any depth), .minicode/ and .git/hooks masked, git config sanitized, empty home, private /tmp, no network unless network:true is permitted; ${limits}`
  }
  return mode === "bwrap"
    ? `sandbox: REQUIRED but unavailable (${status.reason}; ${Unsandboxed.installHint}): bash calls will be refused`
    : `sandbox: NONE: ${Unsandboxed.notice(status.reason)}`
}

/** One line for doctor: where bash's writes go (the live tree, or a staged view merged through the rules), and why. */
export const bashWritesLine = (mode: SandboxMode, workspace: string) =>
  !StagedShell.wanted() || mode === "none"
    ? Effect.succeed(`bash writes: the live workspace (staged view off${mode === "none" ? ": no sandbox" : "; MINICODE_BASH_STAGED=1 turns it on"})`)
    : Effect.map(StagedShell.statusFor(workspace), (s) =>
        s._tag === "Available"
          ? "bash writes: staged (overlayfs view in a user namespace; changes merged through the jail, the git and editor rules and the journal; undo covers them)"
          : `bash writes: the live workspace, in the sandbox (staged view unavailable: ${s.reason})`
      )

/** Whether sessions use the workspace's LSP broker: yes unless MINICODE_LSP_BROKER=off. */
export const lspBrokerWanted = (env: NodeJS.ProcessEnv = process.env) => env["MINICODE_LSP_BROKER"] !== "off"

/** The user's cache folder for minicode: `$XDG_CACHE_HOME/minicode`, else `~/.cache/minicode` (undefined without either). */
export const userCacheDir = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const xdg = env["XDG_CACHE_HOME"]
  if (xdg !== undefined && xdg.startsWith("/")) return `${xdg.replace(/\/+$/, "")}/minicode`
  const home = env["HOME"]
  return home !== undefined && home.startsWith("/") ? `${home.replace(/\/+$/, "")}/.cache/minicode` : undefined
}

/**
 * repo_map over the tree-sitter outliner (module and grammars loaded on first use), unless `mode` — by default
 * `MINICODE_REPOMAP` — is "regex", which forces the regex fallback for every file. Its cache lives in the user's
 * cache folder, never in the workspace.
 */
export const repoMapExtension = (
  mode: "auto" | "regex" = process.env["MINICODE_REPOMAP"] === "regex" ? "regex" : "auto",
  cacheDir: string | undefined = userCacheDir(),
  /** The program whose `repomap worker` makes the map (default: this one, when it is dist/bin.js and MINICODE_REPOMAP_WORKER is not "off"). */
  worker: string | undefined = process.env["MINICODE_REPOMAP_WORKER"] === "off" ? undefined : thisProgram()
) =>
  Effect.gen(function* () {
    const session = yield* Session
    const isolate: RepoMap.Isolate | undefined =
      worker === undefined
        ? undefined
        : (request, note) => RepoMapWorker.run(worker, { root: session.root, workMode: session.workMode, mode, cacheDir, request }, note)
    const options = { mode, cacheDir, ...(isolate === undefined ? {} : { isolate }) }
    if (mode === "regex") return yield* RepoMap.make(options)
    const TreeSitterOutliner = yield* Effect.promise(() => import("../adapters/treesitter/TreeSitterOutliner.js"))
    const outliner = yield* TreeSitterOutliner.make
    return yield* RepoMap.make({ ...options, outliner, outlinerName: TreeSitterOutliner.name })
  })

/**
 * bash over the sandboxed shell (when asked); the git tools' reads and git_commit in the sandbox (`gitRunners`),
 * git_push on the plain Node shell (it needs the network and the user's credentials); sql_query over SQLite and PostgreSQL;
 * the MCP tools and web_fetch over the SDK client and the pinned fetch (loaded on first use; servers are closed
 * when the session's scope ends); the lsp_* tools over the configured language servers (started on first use,
 * shut down with the session), with the post-write `Diagnostics` hook beside the extensions; repo_map.
 */
/** What a front end (CLI, mcp serve) plugs into the MCP client. */
export type McpClientHooks = Pick<McpClientOptions, "elicit" | "onProgress">

export const extensions = (options: {
  readonly unrestricted: boolean
  readonly mcpServers?: Readonly<Record<string, ServerEntry>>
  readonly sql?: Connections
  readonly sandbox?: SandboxOptions | undefined
  /** The config file's `lsp` entries (extension → server). */
  readonly lsp?: Readonly<Record<string, ServerEntry>>
  /** "regex" forces the repo map's regex outlines (default: MINICODE_REPOMAP). */
  readonly repoMap?: "auto" | "regex"
  /** The MCP client's hooks: who answers a server's elicitation, where call progress goes. */
  readonly mcpClient?: McpClientHooks
  /** Language servers held by the workspace's LSP broker (warm between CLI calls, shared with `mcp serve`). */
  readonly lspBroker?: boolean
  /** What the session's scopes let staged bash change (mcp serve's `--scope files=…`, `git=…`). */
  readonly writable?: { readonly files: boolean; readonly git: boolean } | undefined
}) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const session = yield* Session
      // The sandbox is probed when bash is first called, not when the session starts.
      // Without a sandbox the session's first bash result says so (the guard then asks before workspace code).
      const status: Effect.Effect<BashSandboxing | undefined> = (yield* SandboxState).bash
      const notice = Effect.map(status, (b) => (b?._tag === "Unsandboxed" ? Unsandboxed.notice(b.reason) : undefined))
      const git = yield* Effect.flatMap(gitRunners(options), GitTools.makeTools)
      // Sandboxed bash never sees an object store whose history holds a protected file (git or zlib would read it).
      const hideObjects = Effect.flatMap(status, (b) => (b?._tag === "Sandboxed" ? git.secretHistory : Effect.succeed(undefined)))
      const bash = yield* onFirstUse(Effect.provide(BashTool.makeWith(notice, hideObjects), bashShell(options)))
      const local = [deferred((tool) => tool === "bash", bash), git.extension, yield* SqlTool.make, yield* SqlSchemaTool.make]
      // A server runs repository code (a workspace tsserver.js, a build step) that could read a secret back from git.
      const launch = yield* serverLauncher(session.root, options.sandbox?.bwrap, options.sandbox?.mode !== "none", git.secretHistory)
      const mcp = yield* onFirstUse(
        Effect.flatMap(Effect.promise(() => import("./McpLive.js")), (M) =>
          M.live({ servers: options.mcpServers ?? {}, cwd: session.root, env: process.env, launch, authDir: NodeConfig.configHome(), sandboxView: M.sandboxView(session.root, git.secretHistory), ...options.mcpClient })
        )
      )
      const lsp = yield* onFirstUse(
        Effect.flatMap(Effect.promise(() => import("./LspLive.js")), (L) =>
          L.live({
            servers: options.lsp ?? {},
            env: process.env,
            unrestricted: options.unrestricted,
            launch,
            sandboxed: options.sandbox?.mode !== "none",
            history: git.secretHistory,
            broker: options.lspBroker === true
          })
        )
      )
      const repoMap = deferred((tool) => tool === "repo_map", yield* onFirstUse(repoMapExtension(options.repoMap)))
      const extensions = Context.make(Extensions, [
        ...local,
        deferred((tool) => mcpToolNames.has(tool), mcp),
        deferred((tool) => tool.startsWith("lsp_"), Effect.map(lsp, (l) => l.extension)),
        repoMap
      ])
      // Diagnostics after writes only when a language server is configured (else nothing to start, nothing to add).
      return Object.keys(options.lsp ?? {}).length === 0
        ? Context.add(extensions, Diagnostics, noDiagnostics)
        : Context.add(extensions, Diagnostics, { afterWrite: (path: string) => Effect.flatMap(lsp, (l) => l.diagnostics.afterWrite(path)) })
    })
  ).pipe(
    Layer.provide(Layer.mergeAll(NodeShell.layer(options), NodeSqlEngine.layer, Layer.succeed(SqlConnections, options.sql ?? {}), LibpgQueryParser.layer))
  )

/**
 * ripgrep for grep to hand its walk to (it goes unused when `rg` is not on PATH), unless `MINICODE_GREP` is "node":
 * then its own walk always runs. rg runs inside the read-only sandbox (workspace read-only, secrets masked, no
 * network) whenever one is usable; with `sandbox: bwrap` and none usable, grep's own walk runs instead.
 */
export const textSearch = (sandbox?: SandboxOptions, mode = process.env["MINICODE_GREP"]) => {
  if (mode === "node") return UnavailableAdapters.textSearch
  if (sandbox === undefined || sandbox.mode === "none") return RipgrepSearch.layer()
  return Layer.unwrapEffect(
    Effect.map(Effect.cached(BwrapSandbox.make(sandbox.bwrap)), (probed) =>
      RipgrepSearch.layer({
        wrap: (argv, root, scanSince) =>
          Effect.flatMap(probed, (s) =>
            s.status._tag !== "Available"
              ? sandbox.mode === "bwrap"
                ? Effect.fail(new TextSearchError({ kind: "unavailable", reason: `no sandbox for rg: ${s.status.reason}` }))
                : Effect.succeed(undefined)
              : s
                  // rg never reads a git folder (`-g !.git/`): its object folders are masked whole, so the store
                  // check (StoreSecrets, costly on a big history) is not needed for a search.
                  .wrap({
                    command: argv,
                    bindCommand: true,
                    workspace: root,
                    cwd: root,
                    writable: false,
                    network: false,
                    gitTool: true,
                    hideGitObjects: [`${root}/.git`],
                    // A search reads the whole tree (~1 s on 60,000 files): one lstat per folder beats 20 MB of watchers.
                    watchWorkspace: false,
                    scanSince,
                    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }
                  })
                  .pipe(Effect.mapError((e) => new TextSearchError({ kind: "failed", reason: e.reason })))
          )
      })
    )
  )
}

/**
 * A front end's session (CLI, mcp serve): the Node adapters for the configured servers and connections, confined
 * (not unrestricted), with the LSP broker unless MINICODE_LSP_BROKER is "off"; the front end adds its MCP client
 * hooks, allowlist and approver.
 */
export const frontEnd = (options: {
  readonly sql: Connections
  readonly mcpServers: Readonly<Record<string, ServerEntry>>
  readonly lsp: Readonly<Record<string, ServerEntry>>
  readonly sandbox: SandboxMode
  readonly mcpClient: McpClientHooks
  /**
   * A one-shot process (a CLI command): the sandbox's workspace scan makes no watchers (they cost more to set than
   * they save in one call) and starts from the cache an earlier process saved. Servers keep the watched scan.
   */
  /** `scanStore`: the one-shot scan's cache across processes (default: saved whenever the scan changed it). */
  readonly oneShot?: { readonly workspace: string; readonly scanStore?: WatchedScan.Store } | undefined
  /** What the session's scopes let staged bash change. */
  readonly writable?: { readonly files: boolean; readonly git: boolean } | undefined
}): Adapters<ToolFailed> =>
  adapters({
    writable: options.writable,
    unrestricted: false,
    sql: options.sql,
    mcpServers: options.mcpServers,
    lsp: options.lsp,
    // A process that dies mid-call has its calls' ends run by a guardian (Recovery), when it is the minicode program.
    sandbox: {
      mode: options.sandbox,
      bwrap: {
        recoverWith: thisProgram(),
        ...(options.oneShot === undefined ? {} : { scan: WatchedScan.oneShot(options.oneShot.scanStore), probeRecord: options.oneShot.workspace })
      }
    },
    mcpClient: options.mcpClient,
    lspBroker: lspBrokerWanted()
  })

/**
 * grep's search in a worker thread (one kept warm between calls). Its script is in every build; run from the
 * sources without one, the search runs on the calling thread.
 */
const searchWorkers = (): Layer.Layer<SearchWorkers> => {
  const script = grepWorkerScript()
  return script === undefined ? UnavailableAdapters.searchWorkers : ThreadSearchWorkers.layer(script)
}

export const adapters = (options: {
  readonly unrestricted: boolean
  readonly allowlist?: ReadonlyArray<AllowEntry>
  /** "memory" for decisions only (explain, conformance) and dry runs. */
  readonly journal?: "sqlite" | "memory"
  readonly mcpServers?: Readonly<Record<string, ServerEntry>>
  /** The config file's `sql` entries, decoded (`SqlConnection.parseConnections`). */
  readonly sql?: Connections
  readonly sandbox?: SandboxOptions | undefined
  /** The config file's `lsp` entries. */
  readonly lsp?: Readonly<Record<string, ServerEntry>>
  readonly mcpClient?: McpClientHooks
  readonly lspBroker?: boolean
  readonly writable?: { readonly files: boolean; readonly git: boolean } | undefined
}): Adapters<ToolFailed> => ({
  fileSystem: NodeFileSystem.layer,
  textSearch: textSearch(options.sandbox),
  searchWorkers: searchWorkers(),
  allowlist: MemoryAllowlist.layer(options.allowlist ?? []),
  approver: Approvers.constant("no"),
  bashParser: treeSitterParser,
  sandboxState: sandboxState(options.sandbox),
  journal: options.journal === "memory" ? MemoryJournal.layer() : sqliteJournal,
  netGuard: NodeNetGuard.layer,
  // The sandbox's own scan (one per process, or the one-shot one): what it masks, the file tools refuse.
  aliases: ScanAliasesLayer.layer(options.sandbox?.bwrap?.scan ?? WatchedScan.shared),
  extensions: extensions(options),
  sql: sqlGuard(options.sql)
})
