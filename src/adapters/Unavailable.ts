/**
 * Explicit "not available" adapters for ports whose real adapter is not installed in this configuration.
 * They fail with a clear reason; the bash guard's stand-in denies (fail closed), never allows.
 */
import { Effect, Layer } from "effect"
import * as D from "../domain/core/Decision.js"
import { Unavailable } from "../domain/core/Errors.js"
import { BashGuard } from "../ports/BashGuard.js"
import { LspTransport } from "../ports/LspTransport.js"
import { McpTransport } from "../ports/McpTransport.js"
import { Shell, ShellError } from "../ports/Shell.js"

export const bashGuard = Layer.succeed(
  BashGuard,
  BashGuard.of({
    judge: () =>
      Effect.succeed({
        decision: D.deny("guard", "guard.unavailable", "the bash guard is not installed, so no command can be judged safe"),
        allowlisted: false
      })
  })
)

export const shell = Layer.succeed(
  Shell,
  Shell.of({ run: () => Effect.fail(new ShellError({ reason: "no shell adapter is installed" })) })
)

const missing = (port: string) => () => Effect.fail(new Unavailable({ port, reason: "no server is configured for it" }))

export const mcpTransport = Layer.succeed(
  McpTransport,
  McpTransport.of({ servers: [], list: missing("MCP client"), call: missing("MCP client"), read: missing("MCP client"), prompt: missing("MCP client") })
)

const noLsp = missing("LSP client")
export const lspTransport = Layer.succeed(
  LspTransport,
  LspTransport.of({
    servers: [],
    serverFor: () => undefined,
    diagnostics: noLsp,
    definition: noLsp,
    references: noLsp,
    hover: noLsp,
    documentSymbols: noLsp,
    workspaceSymbols: noLsp
  })
)
