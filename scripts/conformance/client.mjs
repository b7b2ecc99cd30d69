// Dev-only: minicode as the client under test of the MCP conformance suite's client scenarios.
// The suite runs `node scripts/conformance/client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO (and, for some
// scenarios, MCP_CONFORMANCE_CONTEXT) set. Everything goes through the built CLI, as a user would run it, in a
// throwaway config folder and workspace:
//   minicode config mcp add conf --url URL --allow-private
//   minicode config mcp login conf            (auth/* only; $BROWSER is this script with --browser, see below)
//   minicode tool mcp_list '{"server":"conf"}'
//   minicode tool mcp_call '{"server":"conf","tool":…}' --work-mode BUILD --policy allow-all
// When a call says "this server needs sign-in" (a step-up: the server wants more scope), it signs in again, as
// the message says, once, and calls again. Login passes the same Client ID Metadata Document URL as the suite's
// reference client (used only where the authorization server supports it) and, for pre-registration and the
// client-credentials grant (--client-credentials), the client id and secret (or private key) the scenario gives.
// The elicitation scenario runs the call on a pseudo-terminal (util-linux `script`) and answers each prompt by
// pressing Enter (keep the default), then "y" (send), as an operator would.
//
// `--browser URL`: the "browser" for `config mcp login`. The suite's authorization server approves at once and
// redirects to minicode's loopback callback; this follows that redirect, as a browser would.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const self = fileURLToPath(import.meta.url)
const repo = path.resolve(path.dirname(self), "..", "..")
const bin = process.env["MINICODE_BIN"] ?? path.join(repo, "dist", "bin.js")

if (process.argv[2] === "--browser") {
  const url = process.argv[3]
  const res = await fetch(url, { redirect: "follow" })
  process.stderr.write(`browser: ${url.split("?")[0]} → ${res.status} ${res.url.split("?")[0]}\n`)
  process.exit(res.ok ? 0 : 1)
}

const serverUrl = process.argv[2]
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const context = process.env["MCP_CONFORMANCE_CONTEXT"] === undefined ? {} : JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"])
if (serverUrl === undefined) {
  console.error("usage: client.mjs <server-url> (MCP_CONFORMANCE_SCENARIO names the scenario)")
  process.exit(2)
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "minicode-conformance-"))
const workspace = path.join(tmp, "ws")
mkdirSync(workspace)
const env = {
  ...process.env,
  XDG_CONFIG_HOME: path.join(tmp, "config"),
  XDG_STATE_HOME: path.join(tmp, "state"),
  XDG_CACHE_HOME: path.join(tmp, "cache"),
  BROWSER: `${process.execPath} ${self} --browser %s`
}
delete env["MCP_CONFORMANCE_CONTEXT"]

class Failed extends Error {
  constructor(args, r) {
    super(`minicode ${args[0]} ${args[1] ?? ""} exited ${r.status ?? r.signal}`)
    this.said = `${r.stdout}${r.stderr}`
  }
}

/** Runs the CLI; prints what it said; fails the scenario on a non-zero exit. */
const minicode = (args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: workspace, env, encoding: "utf8", timeout: 60_000 })
  process.stdout.write(`$ minicode ${args.join(" ")}\n${r.stdout}`)
  if (r.stderr !== "") process.stderr.write(r.stderr)
  if (r.status !== 0) throw new Failed(args, r)
  return r.stdout
}

const cimd = "https://conformance-test.local/client-metadata.json"
const login = () => {
  const preRegistered = typeof context.client_id === "string" ? ["--client-id", context.client_id, ...(typeof context.client_secret === "string" ? ["--client-secret", context.client_secret] : [])] : []
  const machine = scenario.startsWith("auth/client-credentials") ? ["--client-credentials"] : []
  if (typeof context.private_key_pem === "string") {
    // private_key_jwt: the key goes in a file (login keeps its path, never the key).
    const keyFile = path.join(tmp, "client-key.pem")
    writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 })
    machine.push("--private-key-file", keyFile, "--signing-alg", context.signing_algorithm ?? "ES256")
  }
  minicode(["config", "mcp", "login", "conf", "--client-metadata-url", cimd, ...preRegistered, ...machine])
}

/** A call; after "needs sign-in" (auth/* only), one login and one more try. */
const callSignedIn = (args) => {
  try {
    minicode(args)
  } catch (e) {
    if (!(e instanceof Failed) || !scenario.startsWith("auth/") || !e.said.includes("this server needs sign-in")) throw e
    login()
    minicode(args)
  }
}

/** Runs the CLI on a pseudo-terminal, answering elicitation prompts: Enter for each field, then "y". */
const minicodeOnTty = (args) =>
  new Promise((resolve, reject) => {
    const quoted = [process.execPath, bin, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ")
    const child = spawn("script", ["-qfec", quoted, "/dev/null"], { cwd: workspace, env, stdio: ["pipe", "pipe", "inherit"] })
    let seen = ""
    child.stdout.on("data", (chunk) => {
      const text = chunk.toString()
      process.stdout.write(text)
      seen += text
      // Answer each prompt once, as it appears.
      for (;;) {
        const send = seen.indexOf("Send this answer?")
        const field = seen.search(/\]: /)
        if (send >= 0 && (field < 0 || send < field)) {
          child.stdin.write("y\n")
          seen = seen.slice(send + 1)
        } else if (field >= 0) {
          child.stdin.write("\n")
          seen = seen.slice(field + 3)
        } else break
      }
    })
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`minicode ${args[0]} on a tty exited ${code}`))))
  })

const call = (tool, args) => ["tool", "mcp_call", JSON.stringify({ server: "conf", tool, arguments: args }), "--work-mode", "BUILD", "--policy", "allow-all"]
const list = ["tool", "mcp_list", JSON.stringify({ server: "conf" })]

try {
  minicode(["config", "mcp", "add", "conf", "--url", serverUrl, "--allow-private"])
  if (scenario.startsWith("auth/")) login()
  minicode(list)
  switch (scenario) {
    case "initialize":
      break
    case "tools_call":
      minicode(call("add_numbers", { a: 2, b: 3 }))
      break
    case "sse-retry":
      minicode(call("test_reconnection", {}))
      break
    case "elicitation-sep1034-client-defaults":
      await minicodeOnTty(call("test_client_elicitation_defaults", {}))
      break
    default:
      if (!scenario.startsWith("auth/")) throw new Error(`client.mjs: no plan for scenario ${scenario}`)
      callSignedIn(call("test-tool", {}))
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e))
  process.exitCode = 1
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
