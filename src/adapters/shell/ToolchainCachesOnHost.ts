/**
 * The toolchain caches of this host a language server's sandbox shows read-only (domain/sandbox/ToolchainCaches.ts
 * decides which): asked once per process, `go env GOMODCACHE` included when go is installed (2 s at most).
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { Effect } from "effect"
import * as ToolchainCaches from "../../domain/sandbox/ToolchainCaches.js"
import { findOnPath } from "./BwrapSandbox.js"

export interface Found {
  /** Existing cache folders (real paths), to bind read-only. */
  readonly folders: ReadonlyArray<string>
  /** Variables to set inside (GOMODCACHE…). */
  readonly env: Readonly<Record<string, string>>
}

const goEnv = (go: string | undefined) =>
  go === undefined
    ? Effect.succeed(undefined)
    : Effect.async<string | undefined>((resume) => {
        const child = execFile(go, ["env", "GOMODCACHE"], { timeout: 2_000, env: process.env }, (error, stdout) =>
          resume(Effect.succeed(error === null ? String(stdout).trim() : undefined))
        )
        return Effect.sync(() => child.kill("SIGKILL"))
      })

const isFolder = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true

/** What `env` and `home` (the host's) say, the folders that exist. */
export const find = (env: Readonly<Record<string, string | undefined>>, home: string | undefined): Effect.Effect<Found> =>
  Effect.map(goEnv(findOnPath("go")), (goModCache) => {
    const facts: ToolchainCaches.Facts = { home, env, goModCache }
    const shown = ToolchainCaches.folders(facts).filter(isFolder)
    return { folders: shown, env: ToolchainCaches.environment(facts, shown) }
  })
