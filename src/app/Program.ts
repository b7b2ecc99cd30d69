/** The running minicode executable, for the processes it starts of itself (the LSP broker, the repo map's worker). */
import * as fs from "node:fs"
import * as path from "node:path"

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
