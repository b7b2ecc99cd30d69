/** The LSP client's options: the configured servers, the workspace, and the deadlines and caps (with defaults). */
import type { ServerEntry } from "../../domain/core/Config.js"
import type { Launcher } from "../../ports/Launcher.js"

export interface Options {
  readonly servers: Readonly<Record<string, ServerEntry>>
  /** The canonical workspace root: the servers' cwd, `rootUri` and only workspace folder. */
  readonly root: string
  /** The parent environment, scrubbed (Env.scrub) before a server sees it; the entry's own `env` is added. */
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly unrestricted?: boolean
  /** Starts servers (a server whose entry says `sandbox: true` is wrapped); default: as configured. */
  readonly launch?: Launcher
  /** Deadlines for every server (an entry's own `timeouts` override them for that server). */
  readonly initializeTimeoutMs?: number
  readonly requestTimeoutMs?: number
  readonly diagnosticsTimeoutMs?: number
  readonly loadTimeoutMs?: number
  readonly shutdownTimeoutMs?: number
  /** Between SIGTERM and SIGKILL when the process group is killed. */
  readonly killGraceMs?: number
  /** Quiet time after a version-less diagnostics report before it is taken as complete. */
  readonly settleMs?: number
  readonly maxMessageBytes?: number
  readonly maxDocumentBytes?: number
  readonly backoffBaseMs?: number
  readonly backoffMaxMs?: number
  readonly stderrBytes?: number
}

/** The deadlines (ms) and caps. A server that misses `requestTimeoutMs` on a request is taken for hung and killed. */
export const defaults = {
  /** Servers that index the workspace at start (tsserver, pyright) answer initialize within seconds; 30 s is generous. */
  initializeTimeoutMs: 30_000,
  /** Each request (hover, definition, references, symbols) and each notification written to the server. */
  requestTimeoutMs: 15_000,
  /**
   * From the document sent to the settled report (a cold TypeScript project of a few hundred files takes 5-50 s to
   * load and check on a busy machine). When it passes with the server still busy, the report says it may be incomplete.
   */
  diagnosticsTimeoutMs: 60_000,
  /** How long definition, references, hover and workspace symbols wait for the project to load before answering anyway. */
  loadTimeoutMs: 60_000,
  /** For `shutdown` and `exit` on close; then the process group is killed anyway. */
  shutdownTimeoutMs: 2_000,
  killGraceMs: 500,
  settleMs: 150,
  maxMessageBytes: 16 * 1024 * 1024,
  maxDocumentBytes: 4 * 1024 * 1024,
  backoffBaseMs: 500,
  backoffMaxMs: 15_000,
  stderrBytes: 4 * 1024
}
