import { Context } from "effect"
import type { AccessPolicy, PermissionMode, WorkMode } from "../domain/core/Modes.js"

/** The settings of one session: fixed for its lifetime, provided once by the program that runs the chain. */
export interface SessionShape {
  readonly id: string
  readonly turn: number
  /** Canonical (realpath'd) workspace root. */
  readonly root: string
  readonly home?: string | undefined
  readonly workMode: WorkMode
  readonly permissionMode: PermissionMode
  readonly policy?: AccessPolicy | undefined
  /** Per-tool output cap in bytes. */
  readonly maxOutputBytes: number
  /** The SQL dialect to judge `sql_query` by when no connection says (conformance cases set it). */
  readonly sqlDialect?: "sqlite" | "postgres" | "mysql" | undefined
  /** The configuration permits `bash` with `network: true` in permission mode AUTO (config `bashNetwork`). */
  readonly bashNetwork?: boolean | undefined
  /** Each bash command asks in permission mode AUTO (`mcp serve`'s default with a client that can ask; see Policy). */
  readonly bashAsks?: boolean | undefined
  /** The overall deadline of a tool call (config `toolDeadlineMs`; see `Deadline`), when configured. */
  readonly toolDeadlineMs?: number | undefined
}

export class Session extends Context.Tag("minicode/Session")<Session, SessionShape>() {}
