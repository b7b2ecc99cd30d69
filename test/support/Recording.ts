/**
 * Recording in-memory layers of every port the chain and the executor use. Every method call (and every read of
 * an Effect-valued member such as `Allowlist.entries`) lands in one ordered log as `Port.method`, before it runs.
 * The bash guard is the REAL tree-sitter adapter, recorded; nothing here always allows.
 */
import { SearchWorkers } from "../../src/ports/SearchWorkers.js"
import { TextSearch } from "../../src/ports/TextSearch.js"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import { sandboxed } from "./Fakes.js"
import { type Context, Effect, Layer, Ref } from "effect"
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../../src/adapters/approval/MemoryAllowlist.js"
import * as MemoryFileSystem from "../../src/adapters/fs/MemoryFileSystem.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as TreeSitterBashParser from "../../src/adapters/treesitter/TreeSitterBashParser.js"
import type { AllowEntry } from "../../src/domain/core/Allowlist.js"
import * as D from "../../src/domain/core/Decision.js"
import { ToolFailed } from "../../src/domain/core/Errors.js"
import * as Executor from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import { Allowlist } from "../../src/ports/Allowlist.js"
import { Approver, type Answer } from "../../src/ports/Approver.js"
import { BashParser } from "../../src/ports/BashParser.js"
import { Diagnostics } from "../../src/ports/Diagnostics.js"
import { FileSystem } from "../../src/ports/FileSystem.js"
import { Journal } from "../../src/ports/Journal.js"
import { NetGuard } from "../../src/ports/NetGuard.js"
import { PostgresParser, PostgresSyntaxError } from "../../src/ports/PostgresParser.js"
import { ProtectedAliases } from "../../src/ports/ProtectedAliases.js"
import { Shell } from "../../src/ports/Shell.js"
import { SqlConnections } from "../../src/ports/SqlConnections.js"

export type Log = Ref.Ref<ReadonlyArray<string>>

/** The same service, with every Effect-returning method (and Effect member) logged as `port.method` first. */
export const recorded = <S extends object>(log: Log, port: string, service: S): S => {
  const push = (name: string) => Ref.update(log, (l) => [...l, `${port}.${name}`])
  const wrapped: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(service)) {
    if (Effect.isEffect(value)) wrapped[key] = Effect.zipRight(push(key), value)
    else if (typeof value === "function") {
      wrapped[key] = (...args: ReadonlyArray<unknown>) => {
        const result: unknown = Reflect.apply(value, service, args)
        return Effect.isEffect(result) ? Effect.zipRight(push(key), result) : result
      }
    } else wrapped[key] = value
  }
  // Same keys, same signatures: only the Effects are prefixed with a log entry.
  return wrapped as S
}

const recordLayer = <I, S extends object, E, R>(log: Log, tag: Context.Tag<I, S>, port: string, inner: Layer.Layer<I, E, R>) =>
  Layer.effect(tag, Effect.map(tag, (service) => recorded(log, port, service))).pipe(Layer.provide(inner))

export const seed: MemoryFileSystem.Seed = {
  "/ws/a.txt": "alpha\nbeta\n",
  "/ws/src/b.ts": "export const b = 1\n",
  "/ws/.env": "TOKEN=secret\n",
  "/ws/.git/config": "[core]\n",
  "/ws/link-out": { symlink: "/outside" },
  "/ws/link-in": { symlink: "src" },
  "/ws/dangling": { symlink: "/nope/x" },
  "/ws/PLAN.md": "# plan\n",
  "/outside/secret.txt": "outside\n"
}

/** bash runs on the recorded Shell port (the executor's only way out), git_commit is not available here. */
const extensions = Layer.effect(
  Executor.Extensions,
  Effect.map(Shell, (shell): ReadonlyArray<Executor.Extension> => [
    (inv) =>
      inv.facts.call.tool === "bash"
        ? shell
            .run({ command: inv.facts.call.args.command, cwd: "/ws", env: {}, timeoutMs: 1000, maxOutputBytes: 1024 })
            .pipe(
              Effect.map((r) => ({ text: r.stdout, truncated: false })),
              Effect.mapError((e) => new ToolFailed({ tool: "bash", reason: e.reason }))
            )
        : undefined
  ])
)

/**
 * Every port, recorded: FileSystem, Allowlist, Approver, Journal, NetGuard, BashParser (real tree-sitter, under the
 * shipped judge), Shell,
 * Diagnostics, SqlConnections (none configured), PostgresParser (not installed: fails every parse).
 */
export const recordingServices = (
  log: Log,
  options: Kernel.SessionOptions,
  bashParser: Layer.Layer<BashParser> = TreeSitterBashParser.parserLayer,
  allowlist: ReadonlyArray<AllowEntry> = [],
  answer: Answer = "yes"
) => {
  const fs = recordLayer(log, FileSystem, "FileSystem", MemoryFileSystem.layer(seed))
  const shell = recordLayer(
    log,
    Shell,
    "Shell",
    Layer.succeed(Shell, Shell.of({ run: () => Effect.succeed({ exitCode: 0, signal: null, stdout: "ran", stderr: "", truncated: false, timedOut: false, durationMs: 0 }) }))
  )
  const diagnostics = recordLayer(log, Diagnostics, "Diagnostics", Layer.succeed(Diagnostics, Diagnostics.of({ afterWrite: () => Effect.succeed(undefined) })))
  const netGuard = recordLayer(
    log,
    NetGuard,
    "NetGuard",
    Layer.succeed(NetGuard, NetGuard.of({ check: () => Effect.succeed({ decision: D.deny("guard", "net.offline", "no network in tests"), addresses: [] }) }))
  )
  const parser = recordLayer(
    log,
    PostgresParser,
    "PostgresParser",
    Layer.succeed(PostgresParser, PostgresParser.of({ parse: () => Effect.fail(new PostgresSyntaxError({ reason: "not installed" })) }))
  )
  // grep's external engine: recorded, and not installed (grep then walks the recorded file system itself).
  const textSearch = recordLayer(log, TextSearch, "TextSearch", Unavailable.textSearch)
  const ports = Layer.mergeAll(
    textSearch,
    // grep's own search on the calling thread (the recorded file system is in memory).
    recordLayer(log, SearchWorkers, "SearchWorkers", Unavailable.searchWorkers),
    recordLayer(log, Allowlist, "Allowlist", MemoryAllowlist.layer(allowlist)),
    recordLayer(log, Approver, "Approver", Approvers.constant(answer)),
    recordLayer(log, Journal, "Journal", MemoryJournal.layer()),
    recordLayer(log, BashParser, "BashParser", bashParser),
    // The shell is a fake that runs nothing on the host: bash counts as sandboxed.
    sandboxed,
    netGuard,
    shell,
    diagnostics,
    parser,
    // No workspace scan on the in-memory file system: names alone are judged (as in every memory composition);
    // recorded like every port, so a question to it before Permission is seen.
    recordLayer(log, ProtectedAliases, "ProtectedAliases", Unavailable.aliases),
    Layer.succeed(SqlConnections, {})
  )
  const session = Kernel.sessionLayer(options).pipe(Layer.provide(MemoryFileSystem.layer(seed)))
  return Layer.mergeAll(ports, session, fs, Layer.provide(extensions, shell))
}
