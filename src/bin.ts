/**
 * The one place an Effect is run. Built into two CommonJS files: the program, that the executable (src/launcher.ts,
 * shipped as dist/bin.js) runs through a V8 code cache, and the repo map's worker (dist/repomap-worker.cjs, started
 * by repo_map; src/app/RepoMapWorker.ts). The build names which one each is (`MINICODE_ENTRY`), and each bundle
 * keeps only its own branch: the worker loads only what a map needs (a third less memory at rest than the whole
 * program, and a faster start).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Option, Runtime } from "effect"
import { EffectRunner } from "./ports/EffectRunner.js"

declare const MINICODE_ENTRY: "program" | "repomap-worker"

// Programs that must run an Effect from a foreign callback (the MCP SDK's handlers) get their runners from here.
const runner = EffectRunner.of({
  bind: (runtime) => ({
    runPromiseExit: (effect, options) => Runtime.runPromiseExit(runtime)(effect, options),
    runFork: (effect) => {
      Runtime.runFork(runtime)(effect)
    }
  })
})

// The CLI and everything it offers, on the Node platform services @effect/cli needs (files, paths, terminal,
// processes). `mcp serve` needs none of them, so its fast path does not load them.
// Failures are told plainly by the CLI itself (src/cli/Failure.ts), with the exit code from its one table.
const cli = () =>
  Effect.flatMap(
    Effect.promise(() => Promise.all([import("./cli/Cli.js"), import("@effect/platform-node/NodeContext")])),
    ([Cli, NodeContext]) => Effect.provide(Cli.main(process.argv, process.env), NodeContext.layer)
  )

// stdout carries `mcp serve`'s protocol: a start-up failure (a bad config, a bad flag value) is told on stderr, in
// one plain line, and the process exits 1. Every other command reports through the runtime as before.
const toStderr = <A, E extends { readonly message?: string }, R>(serve: Effect.Effect<A, E, R>) =>
  serve.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.sync(() => {
            const failure = Cause.failureOption(cause)
            const text = Option.isSome(failure) && typeof failure.value.message === "string" ? failure.value.message : Cause.pretty(cause)
            process.stderr.write(`minicode mcp serve: ${text}\n`)
            process.exitCode = 1
          })
    )
  )

// A plainly well-formed `mcp serve` starts without loading the CLI (assistants spawn it at every session); anything
// else, or anything unusual in it, goes through the full CLI.
const serving = process.argv[2] === "mcp" && process.argv[3] === "serve"
// The LSP broker (started detached by a session's first language call): its own fast path, no CLI.
const broker = process.argv[2] === "lsp" && process.argv[3] === "broker"
// The guardian's recovery after a process died mid-call (adapters/shell/Recovery): its own fast path, no CLI.
const recovering = process.argv[2] === "sandbox" && process.argv[3] === "recover"
const command = () =>
  recovering
    ? Effect.flatMap(Effect.promise(() => import("./app/SandboxRecovery.js")), (R) => R.main(process.argv.slice(4)))
    : broker
    ? Effect.flatMap(Effect.promise(() => import("./app/LspBroker.js")), (B) =>
        B.main(process.argv.slice(4)).pipe(Effect.tapError((e) => Effect.sync(() => void process.stderr.write(`lsp broker: ${e.message}\n`))))
      )
    : serving
    ? Effect.flatMap(Effect.promise(() => import("./app/ServeLayers.js")), (serve) => {
        const flags = serve.parseArgv(process.argv.slice(4))
        return flags === undefined ? cli() : toStderr(serve.run(flags))
      })
    : cli()

if (MINICODE_ENTRY === "repomap-worker") {
  // The worker tells its own failures (the parent then makes the map itself).
  NodeRuntime.runMain(Effect.flatMap(Effect.promise(() => import("./app/RepoMapWorker.js")), (W) => W.main))
} else {
  // A hang-up (the terminal or session closed) ends the process as SIGTERM does, with every call's end run: by
  // default it killed the process outright, leaving what a sandboxed call had planted (red team 9; a SIGKILL is
  // the guardian's, adapters/shell/Recovery).
  process.on("SIGHUP", () => process.kill(process.pid, "SIGTERM"))
  // `mcp serve` keeps the runtime's own reporting and exit codes; the CLI's failures are already told and its exit
  // code set, and an interrupted command (Ctrl-C, SIGTERM) exits 130.
  command().pipe(
    Effect.provideService(EffectRunner, runner),
    NodeRuntime.runMain(
      serving
        ? { disableErrorReporting: false }
        : {
            disableErrorReporting: true,
            teardown: (exit, onExit) => onExit(Exit.isInterrupted(exit) ? 130 : typeof process.exitCode === "number" ? process.exitCode : Exit.isFailure(exit) ? 1 : 0)
          }
    )
  )
}
