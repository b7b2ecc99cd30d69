/**
 * `minicode mcp serve` (the built dist/bin.js, or BENCH_BIN) as the benches drive it: over stdio through the SDK's
 * client, as an assistant does. `serve` starts one and waits for its tool list; `warmed` first starts and stops one
 * so that the measured server finds its V8 code cache, as every start of an install but its very first does (the
 * start that compiles the bundle and writes the cache is slower, and held ~30 MB more before the launcher's
 * MALLOC_MMAP_THRESHOLD_ gave the parser's memory back).
 */
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

export interface Served {
  readonly client: Client
  readonly pid: number
}

export const bin = (repo: string) => process.env["BENCH_BIN"] ?? path.join(repo, "dist/bin.js")

export const serve = async (command: string, root: string, env?: Record<string, string>): Promise<Served> => {
  const transport = new StdioClientTransport({ command, args: ["mcp", "serve", "--cwd", root], cwd: root, stderr: "ignore", ...(env === undefined ? {} : { env }) })
  const client = new Client({ name: "bench", version: "1" })
  await client.connect(transport)
  await client.listTools()
  return { client, pid: transport.pid ?? 0 }
}

/** `serve`, after a first server has run long enough to write the code cache (the launcher writes it at 500 ms). */
export const warmed = async (command: string, root: string, env?: Record<string, string>): Promise<Served> => {
  const first = await serve(command, root, env)
  await new Promise((r) => setTimeout(r, 1000))
  await first.client.close()
  return serve(command, root, env)
}
