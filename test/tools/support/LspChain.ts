/**
 * The chain the language-server tests run tools through: the real file system and LspTools over one real server,
 * everything else inert (no bash, nobody to ask, a memory journal).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ServerEntry } from "../../../src/domain/core/Config.js"
import * as Kernel from "../../../src/kernel/Kernel.js"
import * as LspLive from "../../../src/app/LspLive.js"
import * as Runner from "../../../src/kernel/Runner.js"
import { nodeAdapters } from "../../support/Adapters.js"

/** A dev dependency's executable; never skip silently: it must be installed. */
export const devBin = (name: string): string => {
  const p = path.resolve(import.meta.dirname, "../../../node_modules/.bin", name)
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: install the dev dependencies`)
  return p
}

/** A workspace for a test outside /tmp (servers may be sandboxed, and the sandbox treats /tmp apart): removed by `done`. */
export const cacheWorkspace = (prefix: string): { readonly root: string; readonly done: () => void } => {
  const base = path.join(os.homedir(), ".cache", "minicode-test")
  fs.mkdirSync(base, { recursive: true, mode: 0o700 })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)))
  return { root, done: () => fs.rmSync(root, { recursive: true, force: true }) }
}

/** The chain in BUILD mode over `root`, with one language server for files ending in `extension` (or each of several). */
export const lspChain = (root: string, extension: string | ReadonlyArray<string>, command: string, entry: Omit<ServerEntry, "command"> = { args: ["--stdio"] }) =>
  Kernel.layer(
    { workspace: root, workMode: "BUILD" },
    nodeAdapters({
      extensions: LspLive.layer({ servers: Object.fromEntries((typeof extension === "string" ? [extension] : extension).map((e) => [e, { command, ...entry }])), env: process.env })
    })
  )

export const run = (tool: string, args: Record<string, unknown>) => Runner.invoke({ tool, args })
