import type { Effect, Scope } from "effect"
import type { ToolFailed } from "../domain/core/Errors.js"

/** How a server process is started: its argv and environment, possibly wrapped in a sandbox profile. */
export interface Launch {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /**
   * The process runs in a PID namespace of its own (a sandbox), where minicode's process id names nothing: a
   * language server told that id would find its "parent" gone and exit, so none is given.
   */
  readonly ownPidNamespace?: boolean
}

/**
 * Given what a configured server would run (`sandbox` from its entry), the argv and env to spawn. The identity
 * launcher returns its input; the sandboxing one wraps it in bubblewrap (workspace read-only, secrets masked).
 */
export type Launcher = (request: {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /**
   * `true`: inside the sandbox or not at all; `"when-available"`: inside it when one can be made, else as configured
   * (language servers by default); `false`: as configured.
   */
  readonly sandbox: boolean | "when-available"
  readonly network: boolean
  /**
   * A language server: its sandbox shows the host's toolchain caches read-only (Go's module cache, Cargo's registry,
   * Maven's repository…; domain/sandbox/ToolchainCaches.ts), never a credential beside them.
   */
  readonly toolchainCaches?: boolean
}) => Effect.Effect<Launch, ToolFailed, Scope.Scope>
