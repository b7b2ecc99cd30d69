/**
 * The real adapters a session runs on, in one place: the CLI, `mcp serve` and the runTool API all start here and
 * replace what they need (the approver, the allowlist store, a fake for tests).
 */
import { Effect, Layer } from "effect"
import * as Approvers from "../adapters/Approvers.js"
import * as BwrapSandbox from "../adapters/BwrapSandbox.js"
import * as MemoryAllowlist from "../adapters/MemoryAllowlist.js"
import * as MemoryJournal from "../adapters/MemoryJournal.js"
import * as NodeFileSystem from "../adapters/NodeFileSystem.js"
import * as NodeShell from "../adapters/NodeShell.js"
import * as SandboxedShell from "../adapters/SandboxedShell.js"
import * as Unavailable from "../adapters/Unavailable.js"
import type { AllowEntry } from "../domain/Allowlist.js"
import { defaultLimits, type Limits } from "../domain/SandboxProfile.js"
import type { SandboxMode, SandboxStatus } from "../ports/Sandbox.js"
import * as BashTool from "./BashTool.js"
import { Extensions } from "./Executor.js"
import * as GitTools from "./GitTools.js"
import type { Adapters } from "./Kernel.js"

export interface SandboxOptions {
  /** `auto`: bwrap when usable, else unsandboxed; `bwrap`: sandbox or refuse bash; `none` (the default here): off. */
  readonly mode: SandboxMode
  readonly limits?: Limits | undefined
  readonly bwrap?: BwrapSandbox.Options | undefined
}

/** The shell `bash` runs on: the sandboxed one unless the mode is `none`. */
export const bashShell = (options: { readonly unrestricted: boolean; readonly sandbox?: SandboxOptions | undefined }) => {
  const sandbox = options.sandbox
  return sandbox === undefined || sandbox.mode === "none"
    ? NodeShell.layer(options)
    : SandboxedShell.layer({ mode: sandbox.mode, unrestricted: options.unrestricted, limits: sandbox.limits ?? defaultLimits }).pipe(
        Layer.provide(BwrapSandbox.layer(sandbox.bwrap))
      )
}

/** What the sandbox probe finds, for doctor and the `mcp serve` instructions. */
export const sandboxStatus = (options: Pick<SandboxOptions, "mode" | "bwrap">) =>
  options.mode === "none"
    ? Effect.succeed({ _tag: "Unavailable" as const, reason: "disabled by configuration (sandbox: none)" })
    : Effect.map(BwrapSandbox.make(options.bwrap), (s) => s.status)

/** One plain line for doctor and the `mcp serve` instructions: is bash sandboxed, and if not, why not. */
export const sandboxLine = (mode: SandboxMode, status: SandboxStatus): string => {
  if (status._tag === "Available") {
    const limits = status.limits.processLimit
      ? "resource limits on"
      : status.limits.prlimit
        ? "CPU/file/memory limits on, process-count limit NOT enforced (running as root without a writable pids cgroup)"
        : "resource limits NOT enforced (prlimit missing)"
    return `sandbox: bash runs inside ${status.version} (mode ${mode}): workspace read-write, secrets and .minicode/ masked, .git/config and .git/hooks read-only, empty home, private /tmp, no network unless network:true is permitted; ${limits}`
  }
  return mode === "bwrap"
    ? `sandbox: REQUIRED but unavailable (${status.reason}): bash calls will be refused`
    : `sandbox: NONE: bash runs unsandboxed, with only the static guard between commands and this machine (${status.reason})`
}

/**
 * bash over the sandboxed shell (when asked) and the git tools over the plain Node shell: git_push needs the
 * network, and the git tools neutralise repository-controlled execution themselves.
 */
export const extensions = (options: { readonly unrestricted: boolean; readonly sandbox?: SandboxOptions | undefined }) =>
  Layer.effect(
    Extensions,
    Effect.all([Effect.provide(BashTool.make, bashShell(options)), GitTools.make])
  ).pipe(Layer.provide(NodeShell.layer(options)))

export const adapters = (options: {
  readonly unrestricted: boolean
  readonly allowlist?: ReadonlyArray<AllowEntry>
  readonly sandbox?: SandboxOptions | undefined
}): Adapters => ({
  fileSystem: NodeFileSystem.layer,
  allowlist: MemoryAllowlist.layer(options.allowlist ?? []),
  approver: Approvers.constant("no"),
  bashGuard: Unavailable.bashGuard,
  journal: MemoryJournal.layer(),
  extensions: extensions(options)
})
