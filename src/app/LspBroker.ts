/**
 * The per-workspace LSP broker, composed: `main` is the broker process (`minicode lsp broker --cwd WS`, started
 * detached by the first language call of a CLI or `mcp serve` session, its configuration on stdin), holding the
 * language servers on the same client and sandbox as a session; `client` is what a session's language tools use
 * (the broker, else in-process); `stopAll` and `statusAll` serve `minicode lsp stop|status`.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { Effect, Either, Schema } from "effect"
import * as BrokerClient from "../adapters/lsp/BrokerClient.js"
import * as BrokerServer from "../adapters/lsp/BrokerServer.js"
import * as BrokerSocket from "../adapters/lsp/BrokerSocket.js"
import * as JsonRpcLspTransport from "../adapters/lsp/JsonRpcLspTransport.js"
import type { ServerEntry } from "../domain/core/Config.js"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Protocol from "../domain/lsp/BrokerProtocol.js"
import type { LspTransportShape } from "../ports/LspTransport.js"
import { renewed } from "./LspRenewal.js"
import { serverHistoryCheck, serverLauncher } from "./NodeLayers.js"
import { thisProgram } from "./Program.js"

/** A broker stops after this long without a request (MINICODE_LSP_IDLE_MS overrides it). */
export const defaultIdleMs = 10 * 60_000

/** What a broker is started with (on its stdin), and what names its socket. */
export interface BrokerConfig {
  readonly root: string
  readonly servers: Readonly<Record<string, ServerEntry>>
  readonly unrestricted: boolean
  /** Language servers go in the sandbox when bubblewrap is usable, unless the session's sandbox mode is `none`. */
  readonly sandboxed: boolean
}

const BrokerConfigSchema = Schema.parseJson(
  Schema.Struct({
    root: Schema.String,
    servers: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    unrestricted: Schema.Boolean,
    sandboxed: Schema.Boolean
  })
)

export { thisProgram }

const configuration = (c: BrokerConfig, program: string) =>
  JSON.stringify({ protocol: Protocol.version, program, servers: c.servers, unrestricted: c.unrestricted, sandboxed: c.sandboxed })

const placeOf = (c: BrokerConfig, program: string, env: Readonly<Record<string, string | undefined>>) => {
  const dir = BrokerSocket.folder(env)
  // Never in the workspace: sandboxed bash could talk to the broker (outside the sandbox) or plant its files.
  return dir === undefined || BrokerSocket.inWorkspace(dir, c.root) ? undefined : BrokerSocket.place(dir, c.root, configuration(c, program))
}

const idleOf = (env: Readonly<Record<string, string | undefined>>) => {
  const raw = env["MINICODE_LSP_IDLE_MS"]
  const n = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(n) && n > 0 ? n : defaultIdleMs
}

/** Starts the broker detached, its stderr to its log file, its configuration on stdin. */
const start = (c: BrokerConfig, program: string, place: BrokerSocket.Place) =>
  Effect.sync((): string | undefined => {
    const bad = BrokerSocket.ensureFolder(place.dir)
    if (bad !== undefined) return bad
    let log: number
    try {
      log = fs.openSync(place.logFile, "a", 0o600)
    } catch (cause) {
      return `cannot open the LSP broker's log ${place.logFile}: ${String(cause)}`
    }
    try {
      const child = spawn(process.execPath, [program, "lsp", "broker", "--cwd", c.root], { detached: true, stdio: ["pipe", "ignore", log], cwd: "/", env: process.env })
      child.on("error", () => undefined)
      child.stdin?.on("error", () => undefined)
      child.stdin?.end(JSON.stringify(c))
      child.unref()
      return undefined
    } catch (cause) {
      return `cannot start the LSP broker: ${String(cause)}`
    } finally {
      fs.closeSync(log)
    }
  })

/**
 * The session's language-server client: through the workspace's broker when this process is the minicode program
 * and a socket folder exists; `direct` (in-process) otherwise, and whenever the broker cannot answer.
 */
export const client = (
  c: BrokerConfig,
  direct: Effect.Effect<LspTransportShape>,
  notice: (sentence: string) => void = (s) => void process.stderr.write(`minicode: ${s}\n`)
): Effect.Effect<LspTransportShape> => {
  const program = thisProgram()
  const place = program === undefined ? undefined : placeOf(c, program, process.env)
  if (program === undefined || place === undefined) return direct
  return BrokerClient.make({ root: c.root, place, servers: c.servers, start: start(c, program, place), direct, notice })
}

const readStdin = Effect.async<string>((resume) => {
  let text = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => (text += chunk))
  process.stdin.once("end", () => resume(Effect.succeed(text)))
  process.stdin.once("error", () => resume(Effect.succeed(text)))
})

const brokerFailed = (reason: string) => new ToolFailed({ tool: "lsp broker", reason })

/** The broker process: its configuration from stdin, its servers in its own scope, serving until idle or stopped. */
export const main = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const cwdAt = argv.indexOf("--cwd")
    const cwd = cwdAt >= 0 ? argv[cwdAt + 1] : undefined
    const decoded = Schema.decodeUnknownEither(BrokerConfigSchema)(yield* readStdin)
    if (Either.isLeft(decoded)) return yield* brokerFailed(`a configuration it cannot read on stdin: ${decoded.left.message.slice(0, 300)}`)
    const c = decoded.right as BrokerConfig
    if (cwd === undefined || fs.realpathSync(cwd) !== c.root) return yield* brokerFailed(`--cwd ${cwd ?? "(missing)"} is not the configured workspace ${c.root}`)
    const program = thisProgram()
    const place = program === undefined ? undefined : placeOf(c, program, process.env)
    if (program === undefined || place === undefined) return yield* brokerFailed("no folder for its socket outside the workspace (set XDG_RUNTIME_DIR or HOME)")
    // The servers' sandbox hides the object stores bash's does (a history holding a protected file), as in a session.
    const history = yield* serverHistoryCheck(c.root, { unrestricted: c.unrestricted, sandboxed: c.sandboxed })
    const launch = yield* serverLauncher(c.root, undefined, c.sandboxed, history)
    const transport = yield* renewed(c, history, JsonRpcLspTransport.make({ servers: c.servers, root: c.root, env: process.env, unrestricted: c.unrestricted, launch }), () =>
      process.stderr.write(`lsp broker ${process.pid}: what the sandbox hides changed; servers restarted\n`)
    )
    const idleMs = idleOf(process.env)
    process.stderr.write(`lsp broker ${process.pid}: serving ${c.root} on ${place.socket} (idle stop after ${idleMs} ms)\n`)
    const outcome = yield* BrokerServer.serve({ root: c.root, place, idleMs, transport })
    process.stderr.write(`lsp broker ${process.pid}: ${outcome === "another" ? "another broker serves this workspace; leaving" : "stopped"}\n`)
  }).pipe(Effect.scoped)

export interface BrokerRow {
  readonly socket: string
  readonly status?: Protocol.Status
  readonly error?: string
}

const socketFolder = () => BrokerSocket.folder(process.env)

/** `minicode lsp status`: each broker of the workspace (there is one per configuration), with its figures. */
export const statusAll = (root: string) =>
  Effect.forEach(BrokerSocket.placesOf(socketFolder() ?? "/nonexistent", root), (place) =>
    Effect.map(BrokerClient.ask(place, root, { op: "status" }), (answer): BrokerRow =>
      Either.isRight(answer) ? { socket: place.socket, status: answer.right as Protocol.Status } : { socket: place.socket, error: answer.left }
    )
  )

/** `minicode lsp stop`: asks each broker of the workspace to stop (a stale socket is removed). */
export const stopAll = (root: string) =>
  Effect.forEach(BrokerSocket.placesOf(socketFolder() ?? "/nonexistent", root), (place) =>
    Effect.map(BrokerClient.ask(place, root, { op: "stop" }), (answer): BrokerRow => {
      if (Either.isRight(answer)) return { socket: place.socket }
      const pid = BrokerSocket.readPid(place.pidFile)
      if (answer.left.includes("stale") && (pid === undefined || !BrokerSocket.isBroker(pid))) {
        fs.rmSync(place.socket, { force: true })
        fs.rmSync(place.pidFile, { force: true })
      }
      return { socket: place.socket, error: answer.left }
    })
  )
