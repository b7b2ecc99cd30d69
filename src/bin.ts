#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The one place an Effect is run. The shebang keeps V8's young generation small: a long-running `mcp serve` makes
 * many short-lived objects per call, and the default semi-space lets resident memory grow far past what it holds.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import * as Cli from "./programs/Cli.js"

Cli.run(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
