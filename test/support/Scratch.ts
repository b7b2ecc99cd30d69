/**
 * Throwaway folders for a test file: `tmp(name)` makes `minicode-<name>-…` under the system's temporary folder (its
 * canonical path), removed after each test.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach } from "vitest"

export const scratchFolders = () => {
  const scratch: Array<string> = []
  afterEach(() => {
    for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })
  return (name: string): string => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `minicode-${name}-`)))
    scratch.push(dir)
    return dir
  }
}
