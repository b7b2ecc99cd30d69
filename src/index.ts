/**
 * minicode's programmatic API. `runToolEffect` runs one call through the whole chain as an Effect;
 * `runTool` is its Promise face; `createKernel` keeps one session's chain for many calls.
 */
import * as os from "node:os"
import { Effect, Either, Exit, Layer, ManagedRuntime } from "effect"
import * as Approvers from "./adapters/approval/Approvers.js"
import * as Allowlist from "./domain/core/Allowlist.js"
import type { Decision } from "./domain/core/Decision.js"
import type { ToolError } from "./domain/core/Errors.js"
import { ToolFailed } from "./domain/core/Errors.js"
import type { AccessPolicy, PermissionMode, WorkMode } from "./domain/core/Modes.js"
import type { Answer } from "./ports/Approver.js"
import type { ToolExecutor, ToolOutput } from "./ports/ToolExecutor.js"
import * as Kernel from "./kernel/Kernel.js"
import * as NodeAdapters from "./app/NodeLayers.js"
import * as Runner from "./kernel/Runner.js"

export interface RunToolOptions {
  readonly workspace: string
  readonly workMode?: WorkMode
  readonly permissionMode?: PermissionMode
  /** `unrestricted` may be set here (per session, never persisted). */
  readonly policy?: AccessPolicy
  /** Allowlist entries for this session (`"bash:npm test"`, `{tool, argv?, path?}`…). */
  readonly allowlist?: ReadonlyArray<unknown>
  /** bash in a bubblewrap sandbox: "auto" (default: when usable), "bwrap" (or refuse bash), "none". */
  readonly sandbox?: "auto" | "bwrap" | "none"
  /** How asks are answered; default "no" (nobody to ask). */
  readonly approve?: Answer
  /** Replace any adapter (tests pass in-memory fakes). */
  readonly adapters?: Partial<Kernel.Adapters<ToolFailed>>
  readonly maxOutputBytes?: number
}

export interface RunToolRequest extends RunToolOptions {
  readonly tool: string
  readonly args?: unknown
}

export type RunToolResult =
  | { readonly ok: true; readonly text: string; readonly truncated: boolean; readonly isError: boolean }
  | { readonly ok: false; readonly error: { readonly _tag: string; readonly message: string } & Record<string, unknown> }

const adaptersFor = (options: RunToolOptions) =>
  Effect.gen(function* () {
    const entries = yield* Either.match(Allowlist.parseEntries(options.allowlist ?? []), {
      onLeft: (reason) => Effect.fail(new ToolFailed({ tool: "allowlist", reason })),
      onRight: Effect.succeed
    })
    const adapters: Kernel.Adapters<ToolFailed> = {
      ...NodeAdapters.adapters({
        unrestricted: options.policy === "unrestricted",
        allowlist: entries,
        sandbox: { mode: options.sandbox ?? "auto" }
      }),
      approver: Approvers.constant(options.approve ?? "no"),
      ...options.adapters
    }
    return adapters
  })

const sessionOf = (options: RunToolOptions): Kernel.SessionOptions => ({
  workspace: options.workspace,
  workMode: options.workMode,
  permissionMode: options.permissionMode,
  policy: options.policy,
  maxOutputBytes: options.maxOutputBytes,
  sessionId: "api",
  home: os.homedir()
})

/** The chain for one session, as a Layer (compose it with your own program). */
export const kernelLayer = (options: RunToolOptions): Layer.Layer<ToolExecutor, ToolFailed> =>
  Layer.unwrapEffect(Effect.map(adaptersFor(options), (adapters) => Kernel.layer(sessionOf(options), adapters)))

/** Runs one call through Permission → Jail → Guard → Validation → Executor → Journal. */
export const runToolEffect = (request: RunToolRequest): Effect.Effect<ToolOutput, ToolError> =>
  Runner.invoke({ tool: request.tool, args: request.args ?? {} }).pipe(Effect.provide(kernelLayer(request)))

/** The gates' decision for a call, with nothing executed (what `minicode policy explain` prints). */
export const explainEffect = (request: RunToolRequest): Effect.Effect<Decision, ToolFailed> =>
  Effect.flatMap(adaptersFor(request), (adapters) =>
    Runner.explain({ tool: request.tool, args: request.args ?? {} }, Kernel.gatesLayer(sessionOf(request), adapters))
  )

const toResult = (exit: Exit.Exit<ToolOutput, ToolError>): RunToolResult => {
  if (Exit.isSuccess(exit)) return { ok: true, text: exit.value.text, truncated: exit.value.truncated, isError: exit.value.isError === true }
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure !== undefined) return { ok: false, error: { ...failure, _tag: failure._tag, message: failure.message } }
  return { ok: false, error: { _tag: "Defect", message: "minicode hit an internal error" } }
}

/** Promise face of `runToolEffect`. Never rejects: failures come back as `{ ok: false, error }`. */
export const runTool = (request: RunToolRequest): Promise<RunToolResult> =>
  Effect.runPromiseExit(runToolEffect(request)).then(toResult)

export const explain = (request: RunToolRequest): Promise<Decision> =>
  Effect.runPromise(explainEffect(request))

/** One session kept warm: the chain is built once, each call only runs it. */
export const createKernel = (options: RunToolOptions) => {
  const runtime = ManagedRuntime.make(kernelLayer(options))
  return {
    run: (tool: string, args: unknown = {}): Promise<RunToolResult> =>
      runtime.runPromiseExit(Runner.invoke({ tool, args })).then(toResult),
    close: (): Promise<void> => runtime.dispose()
  }
}

export type { Decision, ToolError, ToolOutput }
