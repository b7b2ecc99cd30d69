/**
 * `minicode lsp status|stop`: the workspace's LSP brokers (the background processes that keep its language servers
 * warm between calls; one per configuration). `stop` asks each to stop now (its servers shut down, its socket and
 * pid file go); otherwise a broker stops by itself after its idle period.
 */
import * as fs from "node:fs"
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import { cwd, workspaceOf } from "./ConfigFile.js"
import { json } from "./Setup.js"

const rootOf = (dir: Parameters<typeof workspaceOf>[0]) => {
  const ws = workspaceOf(dir)
  return fs.existsSync(ws) ? fs.realpathSync(ws) : ws
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

const status = Command.make("status", { cwd, json }, (flags) =>
  Effect.gen(function* () {
    const B = yield* CliLayers.lspBrokers
    const root = rootOf(flags.cwd)
    const rows = yield* B.statusAll(root)
    if (flags.json) return yield* Console.log(JSON.stringify(rows))
    if (rows.length === 0) return yield* Console.log(`no LSP broker for ${root}`)
    for (const r of rows) {
      yield* Console.log(
        r.status === undefined
          ? `${r.socket}: ${r.error ?? "no answer"}`
          : `LSP broker ${r.status.pid} for ${r.status.root}: up ${Math.round(r.status.uptimeMs / 1000)} s, ${r.status.requests} requests, ${mb(r.status.rssBytes)} (+ ${mb(r.status.serversRssBytes)} in ${r.status.children.length} server processes), stops after ${Math.round(r.status.idleMs / 1000)} s idle; socket ${r.socket}`
      )
    }
  })
).pipe(Command.withDescription("Show the workspace's LSP brokers: pid, uptime, memory, socket"))

const stop = Command.make("stop", { cwd, json }, (flags) =>
  Effect.gen(function* () {
    const B = yield* CliLayers.lspBrokers
    const root = rootOf(flags.cwd)
    const rows = yield* B.stopAll(root)
    const stopped = rows.filter((r) => r.error === undefined).length
    if (flags.json) return yield* Console.log(JSON.stringify({ stopped, brokers: rows }))
    yield* Console.log(stopped === 0 ? `no LSP broker running for ${root}` : `stopped ${stopped} LSP broker${stopped === 1 ? "" : "s"} for ${root}`)
  })
).pipe(Command.withDescription("Stop the workspace's LSP brokers now (they also stop by themselves when idle)"))

export const lspCommand = Command.make("lsp").pipe(
  Command.withDescription("The LSP broker that keeps the workspace's language servers warm between calls"),
  Command.withSubcommands([status, stop])
)
