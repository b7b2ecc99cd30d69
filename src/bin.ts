#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The one place an Effect is run. The shebang keeps V8's young generation small: a long-running `mcp serve` makes
 * many short-lived objects per call, and the default semi-space lets resident memory grow far past what it holds.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"

// A plainly well-formed `mcp serve` starts without loading the CLI (assistants spawn it at every session); anything
// else, or anything unusual in it, goes through the full CLI.
const serve = process.argv[2] === "mcp" && process.argv[3] === "serve" ? await import("./programs/ServeMain.js") : undefined
const flags = serve?.parseArgv(process.argv.slice(4))
const program =
  serve !== undefined && flags !== undefined
    ? serve.run(flags)
    : Effect.flatMap(
        Effect.promise(() => import("./programs/Cli.js")),
        (Cli) => Cli.run(process.argv)
      )

program.pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
