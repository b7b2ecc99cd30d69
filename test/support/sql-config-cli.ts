// Runs `config sql …` as the CLI will once `sqlConfig` is mounted under `minicode config` (used by SqlCli.e2e).
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { sqlConfig } from "../../src/cli/SqlCommands.js"

const cli = Command.run(Command.make("minicode").pipe(Command.withSubcommands([Command.make("config").pipe(Command.withSubcommands([sqlConfig]))])), {
  name: "minicode",
  version: "test"
})
const argv = (args: ReadonlyArray<string>) => ["node", "minicode", "config", "sql", ...args]
NodeRuntime.runMain(
  Effect.gen(function* () {
    yield* cli(argv(["add", "prod", "--url", "postgres://me:hunter2@db:5432/app", "--allow-write"]))
    yield* cli(argv(["list"]))
    yield* cli(argv(["remove", "prod"]))
  }).pipe(Effect.provide(NodeContext.layer))
)
