/**
 * Elicitation asked of the operator on a terminal: the server's message, then each form field in turn (or the URL
 * to visit), then whether to send. Without a TTY on both sides every request is declined. The streams are
 * parameters so a test can drive it.
 */
import * as readline from "node:readline/promises"
import type { Readable, Writable } from "node:stream"
import { Either } from "effect"
import * as McpElicitation from "../../domain/mcp/McpElicitation.js"
import { oneLine } from "../../domain/mcp/McpText.js"

export interface Terminal {
  readonly input: Readable
  readonly output: Writable
}

/** The process's terminal (stdin, stderr) when both are TTYs, else undefined. */
export const processTerminal = (): Terminal | undefined => (process.stdin.isTTY && process.stderr.isTTY ? { input: process.stdin, output: process.stderr } : undefined)

/** Asks on `terminal`; with none, declines. */
export const make = (terminal: Terminal | undefined): McpElicitation.Elicit => {
  if (terminal === undefined) return McpElicitation.decline
  const modes = () => ({ form: true, url: true })
  return Object.assign(async (request: McpElicitation.ElicitationRequest, signal: AbortSignal): Promise<McpElicitation.ElicitationAnswer> => {
    const rl = readline.createInterface({ input: terminal.input, output: terminal.output, terminal: false })
    const ask = (q: string) => rl.question(q, { signal })
    try {
      terminal.output.write(`\nMCP server ${oneLine(request.server)} asks (not a minicode approval): ${oneLine(request.message)}\n`)
      if (request.mode === "url") {
        terminal.output.write(`  open this page: ${oneLine(request.url ?? "")}\n`)
        const go = (await ask("  Did you (or will you) open it? [y]es / [n]o / [c]ancel: ")).trim().toLowerCase()
        return go.startsWith("y") ? { action: "accept" } : go.startsWith("c") ? { action: "cancel" } : { action: "decline" }
      }
      const content: Record<string, McpElicitation.FieldValue> = {}
      for (const field of McpElicitation.fields(request.schema)) {
        const hint = [field.type, ...(field.choices.length > 0 ? [`one of ${field.choices.join("|")}`] : []), ...(field.default === undefined ? [] : [`default ${JSON.stringify(field.default)}`]), ...(field.required ? ["required"] : [])]
        for (;;) {
          const text = await ask(`  ${oneLine(field.name)}${field.description === "" ? "" : ` (${oneLine(field.description)})`} [${hint.join(", ")}]: `)
          const value = McpElicitation.parse(field, text)
          if (Either.isLeft(value)) {
            terminal.output.write(`  ${value.left}\n`)
            continue
          }
          if (value.right !== undefined) content[field.name] = value.right
          break
        }
      }
      const send = (await ask("  Send this answer? [y]es / [n]o (decline) / [c]ancel: ")).trim().toLowerCase()
      return send.startsWith("y") ? { action: "accept", content } : send.startsWith("c") ? { action: "cancel" } : { action: "decline" }
    } catch {
      return { action: "cancel" }
    } finally {
      rl.close()
    }
  }, { modes })
}
