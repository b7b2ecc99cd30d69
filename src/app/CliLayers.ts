/**
 * The adapters the CLI's commands run on, chosen here: the configuration files on disk (`NodeConfig`), the allowlist
 * file, the terminal approver, the session's Node adapters, the journal of a workspace (SQLite, loaded on demand),
 * the URL check of the network guard, and the language-server probe of `doctor`. The commands in src/cli ask for
 * them here and import no adapter themselves.
 */
import * as path from "node:path"
import * as McpFormat from "../domain/mcp/McpFormat.js"
import { Effect, Layer } from "effect"
import type { AllowEntry } from "../domain/core/Allowlist.js"
import { ToolFailed } from "../domain/core/Errors.js"
import type { Connections } from "../domain/sql/SqlConnection.js"
import type { SandboxMode } from "../ports/Sandbox.js"
import type { ServerEntry } from "../domain/core/Config.js"
import type { Adapters } from "../kernel/Kernel.js"
import * as Approvers from "../adapters/approval/Approvers.js"
import * as JsonFileAllowlist from "../adapters/approval/JsonFileAllowlist.js"
import * as NodeConfig from "../adapters/config/NodeConfig.js"
import * as NodeFileSystem from "../adapters/fs/NodeFileSystem.js"
import * as StateDir from "../adapters/fs/StateDir.js"
import * as MemoryJournal from "../adapters/journal/MemoryJournal.js"
import * as NetGuard from "../adapters/net/NetGuard.js"
import * as ScanStore from "../adapters/shell/ScanStore.js"
import * as NodeAdapters from "./NodeLayers.js"

/** The configuration of a workspace: the global file, and the local one when trusted (flag or environment). */
/** Whether a journal record's writer is still the live process that wrote it (recover: a call still running). */
export { alive as writerAlive } from "../adapters/journal/WriterIdentity.js"

export const loadConfig = (workspace: string, allowLocalConfig: boolean) => NodeConfig.load(workspace, NodeConfig.localTrusted(allowLocalConfig))
export const configPaths = (workspace: string) => NodeConfig.paths(workspace)
export const localTrusted = (allowLocalConfig: boolean) => NodeConfig.localTrusted(allowLocalConfig)

/** A URL as the network guard reads it (for `config mcp add --url`). */
export const urlTarget = NetGuard.target

/** The workspace scan's cache of this process (one command), written only by `keepScanCache`. */
const scanCache = ScanStore.held()

/** Saves what the command's scans learnt: the CLI calls it after a call the gates let through, never after a refusal. */
export const keepScanCache = Effect.sync(() => scanCache.keep())

/** A session of the CLI: the Node adapters, the allowlist file (with the configured entries), asks on the terminal. */
export const sessionAdapters = (options: {
  readonly mcpServers: Readonly<Record<string, ServerEntry>>
  readonly sql: Connections
  readonly lsp: Readonly<Record<string, ServerEntry>>
  readonly sandbox: SandboxMode
  readonly allowlistFile: string
  readonly configured: ReadonlyArray<AllowEntry>
  /** The session's workspace (canonical): the sandbox probe's record is kept in its state place, never inside it. */
  readonly workspace: string
}): Adapters<ToolFailed> => ({
  ...NodeAdapters.frontEnd({
    ...options,
    // One command per process: no watchers, the workspace scan's cache kept between commands (`keepScanCache`),
    // the sandbox probe's success kept for the boot.
    oneShot: { workspace: options.workspace, scanStore: scanCache.store },
    // A long MCP call shows its progress on stderr (stdout stays the result).
    mcpClient: { onProgress: (p) => void process.stderr.write(`${McpFormat.progressLine(p)}\n`) }
  }),
  allowlist: JsonFileAllowlist.layer(options.allowlistFile, options.configured),
  approver: Approvers.tty
})

/** A journal for calls that write nothing (a read, a decision): SQLite stays unloaded. */
export const memoryJournal = () => MemoryJournal.layer()

/** The journal of a workspace, loaded on demand (SQLite stays out of start-up), with the Node file system. */
export const workspaceJournal = (workspace: string) =>
  Layer.merge(
    Layer.unwrapEffect(
      Effect.promise(() => import("../adapters/journal/SqliteJournal.js")).pipe(
        Effect.map((m) => m.layer({ dbPath: m.dbPathFor(workspace) })),
        Effect.map(Layer.mapError((e) => new ToolFailed({ tool: "journal", reason: e.reason })))
      )
    ),
    NodeFileSystem.layer
  )

/** Makes the workspace's `.minicode/` folder, private, with its `.gitignore` (`*`). */
export const prepareStateDir = StateDir.prepare

/** The language-server probe of `doctor`, loaded on demand. */
export const lspProbe = Effect.promise(() => import("../adapters/lsp/LspProbe.js"))

/** Where `config mcp login ID` keeps a server's tokens: the config folder, never the workspace. */
export const mcpAuthFile = (id: string) => path.join(NodeConfig.configHome(), "mcp-auth", `${id}.json`)

/**
 * `config mcp login ID`: the OAuth flow for one HTTP server (loaded on use), every request through the pinned fetch
 * (private addresses only when the entry allows them).
 */
export const mcpLogin = (
  id: string,
  entry: ServerEntry,
  extra: { readonly clientId?: string; readonly clientSecret?: string; readonly scope?: string; readonly clientMetadataUrl?: string; readonly clientCredentials?: boolean; readonly privateKeyFile?: string; readonly signingAlg?: string }
): Effect.Effect<"signed-in" | "already", ToolFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const url = entry.url
      if (url === undefined) return yield* new ToolFailed({ tool: "config mcp login", reason: `${id} is a stdio server: sign-in is for --url servers` })
      const [PinnedFetch, Login] = yield* Effect.promise(() => Promise.all([import("../adapters/net/PinnedFetch.js"), import("../adapters/mcp/McpOAuthLogin.js")]))
      const fetch = yield* PinnedFetch.make({ allowPrivate: entry.allowPrivate === true, redirects: "error" })
      return yield* Effect.tryPromise({
        try: () => Login.login({ id, serverUrl: url, file: mcpAuthFile(id), fetch, ...extra, say: (line) => void process.stderr.write(`${line}\n`) }),
        catch: (cause) => new ToolFailed({ tool: "config mcp login", reason: cause instanceof Error ? cause.message : String(cause) })
      })
    })
  )

/** `minicode lsp status|stop`: the workspace's LSP brokers, loaded on demand. */
export const lspBrokers = Effect.promise(() => import("./LspBroker.js"))
