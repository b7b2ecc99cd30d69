/** One running language server as the LSP client holds it: its process, connection, open documents and what it said. */
import type { ChildProcess } from "node:child_process"
import type * as Rpc from "vscode-jsonrpc/node.js"
import type { Deferred, Scope, SynchronizedRef } from "effect"
import type * as Lsp from "../../domain/lsp/Lsp.js"
import type { ServerCaps } from "./LspProtocol.js"

export type RpcModule = typeof Rpc

export interface Published {
  readonly uri: string
  readonly version: number | undefined
  readonly diagnostics: ReadonlyArray<Lsp.Diagnostic>
  /** Arrival order among this server's reports. */
  readonly seq: number
}

/** What the process and connection callbacks update: plain fields, owned by one server instance. */
export interface Life {
  alive: boolean
  /** Set once initialize was answered: a server that dies before is one that "exited at start". */
  initialised: boolean
  reason: string
  /** The exit status, once the process exited: `code 7`, `signal SIGKILL`. */
  status: string | undefined
  stderr: string
  seq: number
  pendingBytes: number
  /** The server cannot see minicode's pid (its own PID namespace): initialize gives no processId. */
  ownPidNamespace: boolean
  readonly listeners: Set<(p: Published) => void>
  /** Work-done progress begun and not ended (`$/progress`), by token: the server is busy (loading a project). */
  readonly progress: Map<string | number, string>
  /** Called after every `$/progress` report. */
  readonly progressListeners: Set<() => void>
  /** Methods the server registered dynamically (`client/registerCapability`). */
  readonly registered: Set<string>
}

export interface OpenDoc {
  readonly version: number
  readonly text: string
  readonly users: number
}

export interface Docs {
  readonly open: ReadonlyMap<string, OpenDoc>
  /** The last version sent per URI, kept after close so versions never repeat. */
  readonly last: ReadonlyMap<string, number>
}

export interface Timeouts {
  readonly initializeMs: number
  readonly requestMs: number
  readonly diagnosticsMs: number
  readonly loadMs: number
  readonly shutdownMs: number
}

export interface Instance {
  readonly name: string
  readonly timeouts: Timeouts
  /** Marks the server dead with this reason and kills its process group (a hung server). */
  readonly kill: (reason: string) => import("effect").Effect.Effect<void>
  readonly rpc: RpcModule
  readonly child: ChildProcess
  readonly conn: Rpc.MessageConnection
  readonly life: Life
  readonly exited: Deferred.Deferred<string>
  readonly docs: SynchronizedRef.SynchronizedRef<Docs>
  readonly scope: Scope.CloseableScope
  readonly startedAt: number
  /** Set from the initialize reply. */
  caps: ServerCaps
}
