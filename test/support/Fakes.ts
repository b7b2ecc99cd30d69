/**
 * Recording fakes: every effect a call could have (content read, write, journal intent, operator prompt, guard
 * verdict) lands in one ordered log, so tests can prove what happened before what.
 */
import { Effect, Layer, Ref } from "effect"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../../src/adapters/approval/MemoryAllowlist.js"
import * as MemoryFileSystem from "../../src/adapters/fs/MemoryFileSystem.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as D from "../../src/domain/core/Decision.js"
import type { AllowEntry } from "../../src/domain/core/Allowlist.js"
import { Approver, type Answer } from "../../src/ports/Approver.js"
import { admitAll } from "./AdmitBash.js"
import { FileSystem } from "../../src/ports/FileSystem.js"
import { Journal } from "../../src/ports/Journal.js"
import { NetGuard } from "../../src/ports/NetGuard.js"
import { SandboxState } from "../../src/ports/SandboxState.js"
import { ToolExecutor } from "../../src/ports/ToolExecutor.js"
import * as Executor from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Chain from "../../src/kernel/Chain.js"

export type Event = "gates-passed" | `fs:${string}` | "journal:begin" | "journal:complete" | "ask" | "exec"

export const seed: MemoryFileSystem.Seed = {
  "/ws/a.txt": "alpha\nbeta\n",
  "/ws/src/b.ts": "export const b = 1\n",
  "/ws/.env": "TOKEN=secret\n",
  "/ws/.env.example": "TOKEN=\n",
  "/ws/.git/config": "[core]\n",
  "/ws/.minicode/state.db": "db",
  "/ws/link-out": { symlink: "/outside" },
  "/ws/link-in": { symlink: "src" },
  "/ws/dangling": { symlink: "/nope/x" },
  "/ws/PLAN.md": "# plan\n",
  "/outside/secret.txt": "outside\n"
}

/** The fakes run nothing on the host (bash is a recorder), so their bash counts as sandboxed. */
export const sandboxed = Layer.succeed(SandboxState, SandboxState.of({ bash: Effect.succeed({ _tag: "Sandboxed" }) }))

/** No network in these tests: every URL is refused. */
export const offline = Layer.succeed(
  NetGuard,
  NetGuard.of({ check: () => Effect.succeed({ decision: D.deny("guard", "net.offline", "no network in tests"), addresses: [] }) })
)

/** A chain over in-memory adapters whose every effect is logged, with a probe right after Permission and Jail. */
export const recordingChain = (
  log: Ref.Ref<ReadonlyArray<Event>>,
  options: Kernel.SessionOptions,
  allowlist: ReadonlyArray<AllowEntry> = [],
  answer: Answer = "yes"
) => {
  const push = (e: Event) => Ref.update(log, (l) => [...l, e])
  const fsLayer = Layer.effect(
    FileSystem,
    Effect.map(MemoryFileSystem.make(seed), ({ fs }) =>
      FileSystem.of({
        ...fs,
        readFile: (p, e) => Effect.zipRight(push(`fs:read ${p}`), fs.readFile(p, e)),
        writeFile: (p, d, o) => Effect.zipRight(push(`fs:write ${p}`), fs.writeFile(p, d, o)),
        makeDirectory: (p) => Effect.zipRight(push(`fs:mkdir ${p}`), fs.makeDirectory(p)),
        remove: (p, o) => Effect.zipRight(push(`fs:remove ${p}`), fs.remove(p, o)),
        rename: (a, b) => Effect.zipRight(push(`fs:rename ${a}`), fs.rename(a, b)),
        chmod: (p, m) => Effect.zipRight(push(`fs:chmod ${p}`), fs.chmod(p, m))
      })
    )
  )
  const journal = Layer.effect(
    Journal,
    Effect.map(MemoryJournal.make(), ({ journal: j }) =>
      Journal.of({
        ...j,
        begin: (i, s) => Effect.zipRight(push("journal:begin"), j.begin(i, s)),
        complete: (id, st, n) => Effect.zipRight(push("journal:complete"), j.complete(id, st, n))
      })
    )
  )
  const approver = Layer.succeed(Approver, Approver.of({ ask: () => Effect.as(push("ask"), answer) }))
  const probe = Layer.effect(
    ToolExecutor,
    Effect.map(ToolExecutor, (next) => ToolExecutor.of({ run: (inv) => Effect.zipRight(push("gates-passed"), next.run(inv)) }))
  )
  const bashRecorder: Executor.Extension = (inv) =>
    inv.facts.call.tool === "bash" ? Effect.as(push("exec"), { text: "ran", truncated: false }) : undefined
  // The shipped list, with the probe right after Jail.
  const after = Chain.stages.indexOf(Chain.Jail) + 1
  const list = [...Chain.stages.slice(0, after), { name: "probe", layer: probe }, ...Chain.stages.slice(after)]
  const stages = Chain.compose(list, Executor.layer([bashRecorder]).pipe(Layer.provide(Layer.merge(Unavailable.textSearch, Unavailable.searchWorkers))))
  const services = Layer.mergeAll(MemoryAllowlist.layer(allowlist), approver, admitAll, journal, offline, sandboxed, Unavailable.sql, Unavailable.aliases, Kernel.sessionLayer(options).pipe(Layer.provide(fsLayer)))
  return stages.pipe(Layer.provide(Layer.merge(services, fsLayer)))
}

export const memoryAdapters = (allowlist: ReadonlyArray<AllowEntry> = []): Kernel.Adapters => ({
  fileSystem: MemoryFileSystem.layer(seed),
  allowlist: MemoryAllowlist.layer(allowlist),
  approver: Approvers.constant("no"),
  bashParser: admitAll, sql: Unavailable.sql, textSearch: Unavailable.textSearch, searchWorkers: Unavailable.searchWorkers, aliases: Unavailable.aliases,
  journal: MemoryJournal.layer(),
  netGuard: offline,
  sandboxState: sandboxed
})
