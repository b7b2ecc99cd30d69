// Dev-only: runs the official MCP conformance suite against minicode and prints a pass/fail table.
//   server: `mcp serve` through the stdio-to-HTTP bridge (bridge.mjs), the scenarios that apply to it;
//   client: minicode's MCP client (client.mjs drives the built CLI), the basic scenarios and every auth/* one.
// Needs the suite and Node 22 in the dev cache (node scripts/conformance/install.mjs); builds dist/ first.
//
// Usage: node scripts/conformance/run.mjs [--only server|client|auth|next] [--scenario NAME]... [--next-scenario NAME]... [--jobs N] [--retries N] [--json] [--no-build]
// --retries N runs a failed scenario again up to N times (sse-retry times the client's reconnection to within
// 200 ms, which a loaded machine can miss); a row says how many tries it took.
// Exit: 0 all passed, 1 a scenario failed, 2 the suite is not installed.
import { spawn, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cacheDir, installed, NEXT_SUITE_VERSION, paths, SUITE_VERSION } from "./install.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, "..", "..")

/** The server scenarios that apply to `mcp serve`. The others need the suite's fixture tools, prompts and resources
 * (test_simple_text, test://static-text, …), among them completion-complete (the prompt test_prompt_with_arguments)
 * and resources-subscribe (test://watched-resource): minicode answers completion/complete and resources/subscribe for
 * its own prompt, template and repo map, and refuses unknown names as the spec says (-32602); or they test the
 * HTTP layer (SSE polling, DNS rebinding), which is the bridge's, not minicode's: `mcp serve` is stdio only. */
export const serverScenarios = ["server-initialize", "ping", "tools-list", "logging-set-level", "prompts-list", "resources-list"]
export const clientScenarios = ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"]
/** The suite's `auth` suite (14), its 2025-03-26 back-compat pair, the draft ones, and of the extensions the
 * client_credentials grant, with a client secret and with a signed assertion (cross-app access is not supported). */
export const authScenarios = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt"
]

/**
 * Run with the newest suite (install.mjs NEXT_SUITE_VERSION): the 2026-07-28 draft's mix-up defences. Its
 * auth/iss-supported and auth/iss-not-advertised are left out: their issuer checks pass, but the draft's server then
 * refuses minicode's initialize for lacking an MCP-Protocol-Version header, which no released spec asks for yet.
 */
export const nextScenarios = ["auth/metadata-issuer-mismatch", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized"]

const parseArgs = (argv) => {
  const o = { only: undefined, scenarios: [], extraNext: [], jobs: 2, retries: 0, json: false, build: true }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === "--only") o.only = argv[++i]
    else if (a === "--scenario") o.scenarios.push(argv[++i])
    // A client scenario of the newest suite besides `nextScenarios` (a draft one whose state the note records).
    else if (a === "--next-scenario") o.extraNext.push(argv[++i])
    else if (a === "--jobs") o.jobs = Math.max(1, Number(argv[++i]) || 1)
    else if (a === "--retries") o.retries = Math.max(0, Number(argv[++i]) || 0)
    else if (a === "--json") o.json = true
    else if (a === "--no-build") o.build = false
    else throw new Error(`run.mjs: unknown argument ${a}`)
  }
  if (o.only !== undefined && !["server", "client", "auth", "next"].includes(o.only)) throw new Error(`run.mjs: --only takes server, client, auth or next, not ${o.only}`)
  return o
}

/** Runs the suite once; the result is its exit code and the checks it saved. */
const suite = (p, args, outDir, which = p.suite) =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(p.node, [which, ...args, "-o", outDir], { cwd: outDir, stdio: ["ignore", "pipe", "pipe"] })
    child.on("error", (e) => resolve({ code: -1, output: e.message, ms: 0, passed: 0, failed: 0, warnings: 0, checks: [] }))
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("close", (code) => {
      const checks = []
      const walk = (dir) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, e.name)
          if (e.isDirectory()) walk(full)
          else if (e.name === "checks.json") checks.push(...JSON.parse(readFileSync(full, "utf8")))
        }
      }
      if (existsSync(outDir)) walk(outDir)
      const count = (s) => checks.filter((c) => c.status === s).length
      resolve({ code, output, ms: Date.now() - started, passed: count("SUCCESS"), failed: count("FAILURE"), warnings: count("WARNING"), checks })
    })
  })

const pool = async (items, jobs, f) => {
  const results = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await f(items[i])
      }
    })
  )
  return results
}

export const run = async (o) => {
  const p = paths()
  const tmp = mkdtempSync(path.join(os.tmpdir(), "minicode-conformance-run-"))
  // Every minicode process (the bridge's `mcp serve`, the client's CLI) gets a throwaway config and state.
  process.env["XDG_CONFIG_HOME"] = path.join(tmp, "config")
  process.env["XDG_STATE_HOME"] = path.join(tmp, "state")
  process.env["XDG_CACHE_HOME"] = path.join(tmp, "cache")
  const want = (group, name) => (o.only === undefined || o.only === group) && (o.scenarios.length === 0 || o.scenarios.includes(name))
  const rows = []
  /** One scenario, tried again (fresh results folder) up to o.retries times while it fails. */
  const attempt = async (group, scenario, args) => {
    for (let tries = 1; ; tries++) {
      const r = await suite(p, args, mkdtempSync(path.join(tmp, `${group}-`)), group === "next" ? p.next : p.suite)
      if (r.code === 0 || tries > (o.retries ?? 0)) return result(group, scenario, r, tries)
    }
  }
  const result = (group, scenario, r, tries) => ({
    group,
    scenario,
    ok: r.code === 0,
    tries,
    passed: r.passed,
    failed: r.failed,
    warnings: r.warnings,
    ms: r.ms,
    ...(r.code === 0 ? {} : { why: r.checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => `${c.id}: ${c.errorMessage ?? c.description}`).slice(0, 3).join("; ") || r.output.trim().split("\n").slice(-3).join(" | ") })
  })
  try {
    const servers = serverScenarios.filter((s) => want("server", s))
    if (servers.length > 0) {
      const workspace = path.join(tmp, "ws")
      mkdirSync(workspace)
      writeFileSync(path.join(workspace, "README.md"), "# conformance workspace\n\nServed by `minicode mcp serve` for the MCP conformance suite.\n")
      const { start } = await import("./bridge.mjs")
      const bridge = await start({ port: 0, cwd: workspace, bin: path.join(repo, "dist", "bin.js"), serveArgs: [], idleMs: 30_000 })
      try {
        for (const r of await pool(servers, o.jobs, (s) => attempt("server", s, ["server", "--url", bridge.url, "--scenario", s]))) rows.push(r)
      } finally {
        await bridge.stop()
      }
    }
    const command = `${process.execPath} ${path.join(here, "client.mjs")}`
    const clients = [...clientScenarios.filter((s) => want("client", s)).map((s) => ["client", s]), ...authScenarios.filter((s) => want("auth", s)).map((s) => ["auth", s]), ...[...nextScenarios, ...o.extraNext].filter((s) => want("next", s)).map((s) => ["next", s])]
    for (const r of await pool(clients, o.jobs, ([g, s]) => attempt(g, s, ["client", "--command", command, "--scenario", s, "--timeout", "60000"]))) rows.push(r)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return rows
}

const table = (rows, ms) => {
  const width = Math.max(...rows.map((r) => r.scenario.length), 8)
  const lines = [`MCP conformance suite ${SUITE_VERSION} (next: ${NEXT_SUITE_VERSION}) against minicode`, `${"group".padEnd(7)} ${"scenario".padEnd(width)} result  checks`]
  for (const r of rows) lines.push(`${r.group.padEnd(7)} ${r.scenario.padEnd(width)} ${r.ok ? "PASS" : "FAIL"}    ${r.passed}/${r.passed + r.failed}${r.warnings > 0 ? ` (${r.warnings} warnings)` : ""}${r.tries > 1 ? ` (try ${r.tries})` : ""}${r.ok ? "" : `  ${r.why}`}`)
  for (const g of ["server", "client", "auth", "next"]) {
    const of = rows.filter((r) => r.group === g)
    if (of.length > 0) lines.push(`${g}: ${of.filter((r) => r.ok).length}/${of.length} scenarios passed`)
  }
  lines.push(`total: ${rows.filter((r) => r.ok).length}/${rows.length} in ${(ms / 1000).toFixed(1)} s`)
  return lines.join("\n")
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const o = parseArgs(process.argv.slice(2))
  if (!installed()) {
    console.error(`conformance: the suite is not installed in ${cacheDir()}: run node scripts/conformance/install.mjs`)
    process.exit(2)
  }
  if (o.build) execFileSync(process.execPath, [path.join(repo, "scripts", "build.mjs")], { cwd: repo, stdio: "inherit" })
  const started = Date.now()
  const rows = await run(o)
  const ms = Date.now() - started
  console.log(o.json ? JSON.stringify({ suite: SUITE_VERSION, next: NEXT_SUITE_VERSION, ms, rows }, null, 2) : table(rows, ms))
  process.exit(rows.every((r) => r.ok) ? 0 : 1)
}
