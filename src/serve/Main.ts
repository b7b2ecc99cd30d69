/**
 * `minicode mcp serve`'s command line and process guard: the flags, parsed without the CLI so `src/bin.ts` can start
 * a well-formed `mcp serve` without loading the whole CLI (assistants spawn it at every session: start-up time
 * matters; anything it does not recognise goes through the full CLI instead), and the shutdown watchdog. The
 * adapters it runs on are chosen in `src/app/ServeLayers.ts`.
 */
import { Effect } from "effect"
import { UsageError } from "../domain/core/Errors.js"

export const version = "0.1.0"

export interface ServeFlags {
  readonly cwd: string | undefined
  readonly allowAll: boolean
  readonly allTools: boolean
  readonly scope: ReadonlyArray<string>
  readonly sandbox: "auto" | "bwrap" | "none" | undefined
  readonly allowLocalConfig: boolean
  /** `--ask` (true) or `--no-ask` (false); undefined: every mutation asks when the client supports elicitation. */
  readonly ask?: boolean | undefined
  /** `--ask-timeout SECONDS`: how long the user has to answer an ask (default 120). */
  readonly askTimeoutMs?: number | undefined
}

export const usage = (reason: string) => new UsageError({ reason })

const sandboxModes = new Set(["auto", "bwrap", "none"])
const isSandboxMode = (s: string): s is "auto" | "bwrap" | "none" => sandboxModes.has(s)

/**
 * The arguments after `mcp serve`, when they are plainly well formed; undefined sends them to the full CLI
 * (help, errors, anything unusual), so there is one place that explains mistakes.
 */
export const parseArgv = (args: ReadonlyArray<string>): ServeFlags | undefined => {
  let cwd: string | undefined
  let sandbox: ServeFlags["sandbox"]
  let allowAll = false
  let allTools = false
  let allowLocalConfig = false
  let ask: boolean | undefined
  let askTimeoutMs: number | undefined
  const scope: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const raw = args[i] ?? ""
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1
    const name = eq > 0 ? raw.slice(0, eq) : raw
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined
    const value = () => inline ?? args[++i]
    switch (name) {
      case "--allow-all":
      case "--all-tools":
      case "--allow-local-config":
      case "--ask":
      case "--no-ask":
        if (inline !== undefined) return undefined
        if (name === "--allow-all") allowAll = true
        else if (name === "--all-tools") allTools = true
        else if (name === "--ask" || name === "--no-ask") {
          if (ask !== undefined) return undefined
          ask = name === "--ask"
        } else allowLocalConfig = true
        break
      case "--ask-timeout": {
        const seconds = parseAskTimeout(value())
        if (seconds === undefined) return undefined
        askTimeoutMs = seconds * 1000
        break
      }
      case "--cwd": {
        const v = value()
        if (v === undefined || v === "") return undefined
        cwd = v
        break
      }
      case "--scope": {
        const v = value()
        if (v === undefined) return undefined
        scope.push(v)
        break
      }
      case "--sandbox": {
        const v = value()
        if (v === undefined || !isSandboxMode(v)) return undefined
        sandbox = v
        break
      }
      default:
        return undefined
    }
  }
  return { cwd, allowAll, allTools, scope, sandbox, allowLocalConfig, ask, askTimeoutMs }
}

/** `--ask-timeout`'s value: whole seconds from 1 to 3600. */
export const parseAskTimeout = (text: string | undefined): number | undefined =>
  text !== undefined && /^[0-9]{1,4}$/.test(text) && Number(text) >= 1 && Number(text) <= 3600 ? Number(text) : undefined

/** After the drain deadline: the bounded wait for interruptions (1 s) and closing the servers and the journal. */
export const closingMs = 3_000

/**
 * A backstop behind the drain, which is bounded itself: once SIGTERM or SIGINT arrived, the process exits by the
 * drain deadline plus `closingMs` even if closing something hangs (the timer does not keep the process alive).
 */
export const watchdog = (ms: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const arm = () => {
        setTimeout(() => {
          process.stderr.write(`minicode mcp serve: shutting down took longer than ${ms} ms; exiting now\n`)
          process.exit(1)
        }, ms).unref()
      }
      process.once("SIGTERM", arm)
      process.once("SIGINT", arm)
      return arm
    }),
    (arm) =>
      Effect.sync(() => {
        process.off("SIGTERM", arm)
        process.off("SIGINT", arm)
      })
  )
