/** The running minicode executable, for the processes it starts of itself (the LSP broker, the repo map's worker). */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The running program (dist/bin.js) when this process is one; helper processes are started only from it. */
export const thisProgram = (): string | undefined => {
  const script = process.argv[1]
  if (script === undefined) return undefined
  try {
    const real = fs.realpathSync(script)
    return path.basename(real) === "bin.js" ? real : undefined
  } catch {
    return undefined
  }
}

/**
 * grep's search worker (dist/grep-worker.cjs, built from src/app/GrepWorker.ts): beside the running program, beside
 * this module's bundle (dist/ or dist/chunks/), or, from the sources (the tests), in the repository's dist/.
 */
export const grepWorkerScript = (): string | undefined => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const program = thisProgram()
  const candidates = [
    ...(program === undefined ? [] : [path.join(path.dirname(program), "grep-worker.cjs")]),
    path.join(here, "grep-worker.cjs"),
    path.join(here, "..", "grep-worker.cjs"),
    path.join(here, "..", "..", "dist", "grep-worker.cjs")
  ]
  return candidates.find((c) => fs.existsSync(c))
}
