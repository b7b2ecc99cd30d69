import { Context, type Effect, Schema, type Scope } from "effect"
import type { Limits } from "../domain/sandbox/SandboxProfile.js"

export const SandboxMode = Schema.Literal("auto", "bwrap", "none")
export type SandboxMode = typeof SandboxMode.Type

/** What the one probe found: a usable sandbox, or why there is none (said plainly by doctor and `mcp serve`). */
export type SandboxStatus =
  | {
      readonly _tag: "Available"
      readonly kind: "bwrap"
      readonly version: string
      /**
       * Resource limits: prlimit inside (RLIMIT_*), a pids cgroup (used for host root, whom RLIMIT_NPROC exempts),
       * and whether the process limit actually holds.
       */
      readonly limits: { readonly prlimit: boolean; readonly pidsCgroup: boolean; readonly processLimit: boolean }
    }
  | { readonly _tag: "Unavailable"; readonly reason: string }

export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Schema.String
}) {
  override get message() {
    return `sandbox: ${this.reason}`
  }
}

/** One command to run inside a sandbox. */
export interface WrapRequest {
  readonly command: ReadonlyArray<string>
  /**
   * For servers: also bind, read-only, what the command needs outside the system folders — the program's
   * folder and, for a script or file argument under `node_modules`, that whole `node_modules` (its dependencies).
   */
  readonly bindCommand?: boolean
  /** Further host folders to show read-only (a repository's git folder outside the workspace, say). */
  readonly readOnly?: ReadonlyArray<string>
  /**
   * Git folders (inside the workspace) whose object store and every other folder that holds object content
   * (`objects`, `lost-found`, `rr-cache`, `rebase-apply`, `rebase-merge`, and alternates inside the workspace) are
   * masked: their history holds a protected file, which git or any zlib would otherwise read back.
   */
  readonly hideGitObjects?: ReadonlyArray<string>
  /**
   * The git tools' own runs (they filter what they print): the stores that are otherwise always hidden (nested
   * repositories', and one holding a masked file's content) are shown.
   */
  readonly gitTool?: boolean
  /**
   * False for a long call over the whole tree (rg's search): the workspace scan does not set a watcher on every
   * folder for it (~20 MB on a 25,000-folder tree, to spare a ~50 ms check); watchers set for other calls serve it.
   */
  readonly watchWorkspace?: boolean
  /** A workspace scan that started at or after this `performance.now()` may serve (see TextSearch's `scanSince`). */
  readonly scanSince?: number | undefined
  /** Canonical workspace root. */
  readonly workspace: string
  readonly cwd: string
  /** Workspace read-write (bash) or read-only (servers, unless asked). */
  readonly writable: boolean
  /**
   * The workspace the command sees is a staged overlay view (adapters/staged): its writes never reach the tree, so
   * nothing is recorded to put back when it ends (no control records, no guardian).
   */
  readonly staged?: boolean
  readonly network: boolean
  readonly limits?: Limits | undefined
  /** The environment to start from (already scrubbed); HOME, TMPDIR and PWD are replaced. */
  readonly env: Readonly<Record<string, string>>
}

/** The argv and environment to spawn instead. The scope owns what wrapping created (a pids cgroup). */
export interface Wrapped {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /**
   * Undefined while what the sandbox hides stays hidden; once it may not (the host replaced a masked file while the
   * command ran), why. Asked before any of the command's output is let out.
   */
  readonly broken?: () => string | undefined
  /** Calls the listener once, when `broken` first has an answer (at once if it has): the command is stopped then. Unsubscribes. */
  readonly whenBroken?: (listener: () => void) => () => void
  /** Every path inside the workspace the sandbox mounts something on, with its kind (a staged view's mask layer holds them). */
  readonly mountPoints?: ReadonlyArray<{ readonly path: string; readonly kind: "file" | "directory"; readonly treatment?: "mask" | "read-only" | "pin" }>
}

export interface SandboxShape {
  /** Probed once, when the layer was built. */
  readonly status: SandboxStatus
  /** Fails with SandboxError when the sandbox is unavailable or the request cannot be honoured. */
  readonly wrap: (request: WrapRequest) => Effect.Effect<Wrapped, SandboxError, Scope.Scope>
}

export class Sandbox extends Context.Tag("minicode/Sandbox")<Sandbox, SandboxShape>() {}
