/**
 * Model-based runs of generated tool-call sequences on a real kernel (fast-check's `commands`): each call's result
 * must not hold the canary, and `verify` must hold after it; each sequence runs on a fresh `setup()`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { expect } from "vitest"
import type { createKernel } from "../../src/index.js"

export interface Real {
  readonly kernel: ReturnType<typeof createKernel>
}

/** A run on `runFolders`: the kernel over `root`, and a snapshot of everything outside it under `parent`. */
export interface FolderRun extends Real {
  readonly root: string
  readonly parent: string
  readonly outside: Record<string, string>
}
type Model = Record<string, never>

/** The command class of one run: `new Call(tool, args)` runs the call and checks the canary and `verify`. */
export const callsOf = <R extends Real>(canary: string, verify: (real: R, what: string) => void) =>
  class Call implements fc.AsyncCommand<Model, R> {
    constructor(
      readonly tool: string,
      readonly args: Record<string, unknown>
    ) {}
    check = () => true
    async run(_model: Model, real: R) {
      const result = await real.kernel.run(this.tool, this.args)
      const what = this.toString()
      expect(JSON.stringify(result), what).not.toContain(canary)
      verify(real, what)
    }
    toString = () => `${this.tool} ${JSON.stringify(this.args)}`
  }

/** Checks `numRuns` generated sequences of up to `maxCommands` of `commands`, each on a fresh `setup()` closed after. */
export const checkSequences = <R extends Real>(
  commands: ReadonlyArray<fc.Arbitrary<fc.AsyncCommand<Model, R>>>,
  setup: () => R,
  options: { readonly maxCommands: number; readonly numRuns: number }
) =>
  fc.assert(
    fc.asyncProperty(fc.commands([...commands], { maxCommands: options.maxCommands }), async (cmds) => {
      const real = setup()
      try {
        await fc.asyncModelRun(() => ({ model: {}, real }), cmds)
      } finally {
        await real.kernel.close()
      }
    }),
    { numRuns: options.numRuns }
  )

/** Writes `files` (path → content) under `dir`, making their folders. */
export const writeFiles = (dir: string, files: Readonly<Record<string, string>>) => {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), content)
  }
}

/** Each call: a fresh run's folders under `scratch`, `root` a copy of `template` beside a canary file in `parent`. */
export const runFolders = (scratch: string, template: string, canary: string) => {
  let runs = 0
  return () => {
    const parent = path.join(scratch, `run-${++runs}`)
    const root = path.join(parent, "ws")
    fs.mkdirSync(parent)
    fs.writeFileSync(path.join(parent, "outside.txt"), `${canary}OUTSIDE\n`)
    fs.cpSync(template, root, { recursive: true })
    return { parent, root }
  }
}
