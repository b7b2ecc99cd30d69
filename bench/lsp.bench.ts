/**
 * The language tools' costs:
 * - write_file → diagnostics on a 50-file TypeScript project, through the whole chain (minicode), against the same
 *   protocol sequence driven directly over vscode-jsonrpc (write the file, didOpen, tsserver's semantic and syntactic
 *   diagnostics requests, the importers' semantic diagnostics, didClose). Alternately breaks and fixes a type.
 * - a second CLI lsp_definition (dist/bin.js, a fresh process) answered by the workspace's LSP broker, against the
 *   same request on a direct vscode-jsonrpc client to a warm server (didOpen, definition, didClose), and against a
 *   CLI call that starts no server (read_file: the process's own start-up); with the broker's memory and its servers'.
 *   Needs dist/ (node scripts/build.mjs). Issue 23's goal: the second CLI lsp_definition under 500 ms.
 * - repo_map of this repository: cold (no cache) and warm (every outline cached).
 *
 *   npx tsx bench/lsp.bench.ts [iterations=10]
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js"
import * as Kernel from "../src/kernel/Kernel.js"
import * as NodeAdapters from "../src/app/NodeLayers.js"
import * as RepoMapCache from "../src/tools/RepoMapCache.js"
import * as Runner from "../src/kernel/Runner.js"

const iterations = Number(process.argv[2] ?? 10)
const tsls = path.resolve("node_modules/.bin/typescript-language-server")

const fixture = () => {
  // Outside /tmp: language servers run sandboxed, and the sandbox keeps /tmp apart.
  const base = path.join(os.homedir(), ".cache", "minicode-test")
  fs.mkdirSync(base, { recursive: true, mode: 0o700 })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(base, "lspbench-")))
  fs.mkdirSync(path.join(root, "src"))
  fs.writeFileSync(path.join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true }, include: ["src"] }))
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ type: "module" }))
  for (let i = 0; i < 50; i++) {
    const prev = i === 0 ? "" : `import { f${i - 1}, type T${i - 1} } from "./m${i - 1}.js"\n`
    const body = Array.from({ length: 20 }, (_, k) => `export const c${i}_${k}: number = ${k} * 2\n`).join("")
    fs.writeFileSync(
      path.join(root, "src", `m${i}.ts`),
      `${prev}export interface T${i} { readonly id: number; readonly name: string }\nexport function f${i}(x: number): number {\n  return ${i === 0 ? "x" : `f${i - 1}(x)`} + 1\n}\n${body}`
    )
  }
  return root
}
const variant = (root: string, i: number, broken: boolean) => {
  const file = path.join(root, "src", "m25.ts")
  const text = fs.readFileSync(file, "utf8").replace(/export const total[^\n]*\n/, "")
  return { file, text: `${text}export const total${i}: number = ${broken ? '"oops"' : "f24(1)"}\n` }
}

const stats = (label: string, ms: ReadonlyArray<number>) => {
  const sorted = [...ms].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0
  const mean = ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)
  console.log(`${label.padEnd(34)} median ${median.toFixed(0).padStart(5)} ms   mean ${mean.toFixed(0).padStart(5)} ms   (n=${ms.length})`)
  return median
}

// Unsandboxed, like the direct peer: the comparison is the client's cost, not bubblewrap's.
const viaMinicode = async (root: string) => {
  const adapters = NodeAdapters.adapters({ unrestricted: false, journal: "memory", lsp: { ".ts": { command: tsls, args: ["--stdio"]} } })
  const program = Effect.gen(function* () {
    yield* Runner.invoke({ tool: "lsp_diagnostics", args: { path: "src/m25.ts" } })
    const times: Array<number> = []
    for (let i = 0; i < iterations; i++) {
      const { text } = variant(root, i, i % 2 === 0)
      const t0 = performance.now()
      const out = yield* Runner.invoke({ tool: "write_file", args: { path: "src/m25.ts", content: text } })
      times.push(performance.now() - t0)
      if (out.text.includes("error TS2322") !== (i % 2 === 0)) throw new Error(`unexpected result: ${out.text}`)
    }
    return times
  })
  return Effect.runPromise(program.pipe(Effect.provide(Kernel.layer({ workspace: root, workMode: "BUILD" }, adapters))))
}

const direct = async (root: string) => {
  const child = spawn(tsls, ["--stdio"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin))
  conn.onRequest(() => null)
  conn.listen()
  const rootUri = `file://${root}`
  await conn.sendRequest("initialize", { processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: "b" }], capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } } } })
  await conn.sendNotification("initialized", {})
  let version = 0
  const ts = (command: string, args: unknown) =>
    conn.sendRequest<{ body?: ReadonlyArray<{ category?: string }> & { refs?: ReadonlyArray<{ file: string }> } }>("workspace/executeCommand", { command: "typescript.tsserverRequest", arguments: [command, args] })
  // The settled sequence minicode uses: tsserver's own diagnostics, then the importers' after a write.
  const once = async (file: string, text: string, dependents: boolean) => {
    const uri = `file://${file}`
    await conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: ++version, text } })
    const semantic = await ts("semanticDiagnosticsSync", { file })
    const syntactic = await ts("syntacticDiagnosticsSync", { file })
    if (dependents) {
      const refs = await ts("fileReferences", { file })
      for (const f of new Set((refs.body?.refs ?? []).map((r) => r.file))) if (f !== file) await ts("semanticDiagnosticsSync", { file: f })
    }
    await conn.sendNotification("textDocument/didClose", { textDocument: { uri } })
    return [...(syntactic.body ?? []), ...(semantic.body ?? [])].map((d) => ({ severity: d.category === "error" ? 1 : 2 }))
  }
  await once(path.join(root, "src", "m25.ts"), fs.readFileSync(path.join(root, "src", "m25.ts"), "utf8"), false)
  const times: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const { file, text } = variant(root, i, i % 2 === 0)
    const t0 = performance.now()
    fs.writeFileSync(file, text)
    const ds = await once(file, text, true)
    times.push(performance.now() - t0)
    const errors = ds.filter((d) => typeof d === "object" && d !== null && "severity" in d && d.severity === 1).length
    if (errors !== (i % 2 === 0 ? 1 : 0)) throw new Error(`direct: unexpected ${errors} errors`)
  }
  await conn.sendRequest("shutdown").catch(() => undefined)
  await conn.sendNotification("exit").catch(() => undefined)
  conn.dispose()
  child.kill()
  return times
}

/** definition of f29 where src/m30.ts calls it (line 4): m29.ts. */
const definitionArgs = { path: "src/m30.ts", symbol: "f29", line: 4 }

const viaBroker = (root: string) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "lspbench-home-"))
  const runtime = path.join(home, "run")
  fs.mkdirSync(runtime, { mode: 0o700 })
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_RUNTIME_DIR: runtime, MINICODE_LSP_IDLE_MS: "300000" }
  delete env["MINICODE_LSP_BROKER"]
  const cli = (args: ReadonlyArray<string>) => {
    const t0 = performance.now()
    const r = spawnSync(process.execPath, [path.resolve("dist/bin.js"), ...args, "--cwd", root], { encoding: "utf8", env, cwd: root })
    const ms = performance.now() - t0
    if (r.status !== 0) throw new Error(`minicode ${args.join(" ")}: ${r.stderr}`)
    return { ms, out: r.stdout }
  }
  cli(["config", "lsp", "add", ".ts", "--command", tsls, "--arg", "--stdio", "--no-sandbox"])
  const call = ["tool", "lsp_definition", JSON.stringify(definitionArgs)]
  const first = cli(call)
  if (!first.out.includes("src/m29.ts:3:17")) throw new Error(`unexpected definition: ${first.out}`)
  const warm: Array<number> = []
  const startup: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const r = cli(call)
    if (r.out !== first.out) throw new Error(`the broker answered differently: ${r.out}`)
    warm.push(r.ms)
    startup.push(cli(["tool", "read_file", JSON.stringify({ path: "src/m0.ts" })]).ms)
  }
  const status = JSON.parse(cli(["lsp", "status", "--json"]).out) as ReadonlyArray<{ status?: { rssBytes: number; serversRssBytes: number; children: ReadonlyArray<number> } }>
  cli(["lsp", "stop"])
  fs.rmSync(home, { recursive: true, force: true })
  return { first: first.ms, warm, startup, status: status[0]?.status }
}

const directDefinition = async (root: string) => {
  const child = spawn(tsls, ["--stdio"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin))
  conn.onRequest(() => null)
  conn.listen()
  const rootUri = `file://${root}`
  await conn.sendRequest("initialize", { processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: "b" }], capabilities: {} })
  await conn.sendNotification("initialized", {})
  const file = path.join(root, "src", "m30.ts")
  const uri = `file://${file}`
  const text = fs.readFileSync(file, "utf8")
  let version = 0
  const once = async () => {
    await conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: ++version, text } })
    const found = await conn.sendRequest<ReadonlyArray<{ uri?: string; targetUri?: string }> | null>("textDocument/definition", { textDocument: { uri }, position: { line: 3, character: 9 } })
    await conn.sendNotification("textDocument/didClose", { textDocument: { uri } })
    return found ?? []
  }
  // Warm: the project loaded.
  const crossFile = (found: ReadonlyArray<{ uri?: string; targetUri?: string }>) => (found[0]?.uri ?? found[0]?.targetUri ?? "").endsWith("/m29.ts")
  const until = Date.now() + 60_000
  while (!crossFile(await once()) && Date.now() < until) await new Promise((r) => setTimeout(r, 200))
  const times: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now()
    const found = await once()
    times.push(performance.now() - t0)
    if (!crossFile(found)) throw new Error(`direct: unexpected definition ${JSON.stringify(found)}`)
  }
  await conn.sendRequest("shutdown").catch(() => undefined)
  await conn.sendNotification("exit").catch(() => undefined)
  conn.dispose()
  child.kill()
  return times
}

const repoMap = async () => {
  const root = fs.realpathSync(".")
  const cacheDir = NodeAdapters.userCacheDir()
  if (cacheDir !== undefined) fs.rmSync(RepoMapCache.cacheFile(cacheDir, root), { force: true })
  const adapters = NodeAdapters.adapters({ unrestricted: false, journal: "memory" })
  const once = Effect.gen(function* () {
    const t0 = performance.now()
    const out = yield* Runner.invoke({ tool: "repo_map", args: {} })
    return { ms: performance.now() - t0, head: out.text.split("\n")[0] ?? "" }
  })
  return Effect.runPromise(
    Effect.gen(function* () {
      const cold = yield* once
      const warm = yield* once
      return { cold, warm }
    }).pipe(Effect.provide(Kernel.layer({ workspace: root }, adapters)))
  )
}

console.log("write_file → settled diagnostics (with dependents), 50-file TypeScript project, typescript-language-server")
const a = fixture()
const mine = stats("minicode (chain + client)", await viaMinicode(a))
const b = fixture()
const raw = stats("direct vscode-jsonrpc", await direct(b))
console.log(`ratio minicode / direct: ${(mine / raw).toFixed(2)}×`)
for (const root of [a, b]) fs.rmSync(root, { recursive: true, force: true })

console.log("\nsecond CLI lsp_definition through the LSP broker (50-file project, typescript-language-server)")
const c = fixture()
const brokered = viaBroker(c)
console.log(`first CLI call (starts the broker and the server): ${brokered.first.toFixed(0)} ms`)
const cliWarm = stats("CLI lsp_definition via the broker", brokered.warm)
const cliStart = stats("CLI read_file (process start-up)", brokered.startup)
const rawDefinition = stats("direct vscode-jsonrpc, warm server", await directDefinition(c))
console.log(`ratio CLI via broker / direct: ${(cliWarm / rawDefinition).toFixed(1)}×; the broker's share over a CLI start-up: ${(cliWarm - cliStart).toFixed(0)} ms; goal < 500 ms: ${cliWarm < 500 ? "met" : "NOT met"}`)
const mb = (n: number | undefined) => `${Math.round((n ?? 0) / (1024 * 1024))} MB`
console.log(`memory: broker ${mb(brokered.status?.rssBytes)} resident, its server processes ${mb(brokered.status?.serversRssBytes)} (${brokered.status?.children.length ?? 0} processes)`)
fs.rmSync(c, { recursive: true, force: true })
const map = await repoMap()
console.log(`repo_map of this repository: cold ${map.cold.ms.toFixed(0)} ms, warm (cached) ${map.warm.ms.toFixed(0)} ms — ${map.cold.head}`)
