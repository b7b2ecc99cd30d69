/**
 * Finds what starts the running installation, for `mcp config`: the Node executable running us, the entry script
 * it runs (process.argv[1], the launcher dist/bin.js or a symlink to it, resolved), that script's shebang, and
 * whether the first `minicode` on PATH is this very script. Nothing is looked up anywhere else: no registry, no
 * package name.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import type * as ClientConfig from "../domain/mcp/McpClientConfig.js"

const realpath = (file: string): string | undefined => {
  try {
    return fs.realpathSync(file)
  } catch {
    return undefined
  }
}

const firstLine = (file: string): string => {
  try {
    const fd = fs.openSync(file, "r")
    try {
      const buf = Buffer.alloc(512)
      const n = fs.readSync(fd, buf, 0, buf.length, 0)
      return buf.subarray(0, n).toString("utf8").split("\n")[0] ?? ""
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return ""
  }
}

const executable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** The first executable `minicode` a shell would find on PATH (absolute entries only), if any. */
const onPath = (env: NodeJS.ProcessEnv): string | undefined => {
  if (process.platform === "win32") return undefined
  for (const dir of (env["PATH"] ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const candidate = path.join(dir, "minicode")
    if (executable(candidate)) return candidate
  }
  return undefined
}

export const find: Effect.Effect<ClientConfig.Install, ToolFailed> = Effect.suspend(() => {
  const argv1 = process.argv[1]
  const script = argv1 === undefined ? undefined : realpath(path.resolve(argv1))
  if (script === undefined)
    return Effect.fail(new ToolFailed({ tool: "minicode mcp", reason: "cannot tell which script this process runs (process.argv[1])" }))
  const first = onPath(process.env)
  return Effect.succeed({
    execPath: process.execPath,
    script,
    shebang: firstLine(script),
    onPath: first !== undefined && realpath(first) === script ? first : undefined
  })
})
