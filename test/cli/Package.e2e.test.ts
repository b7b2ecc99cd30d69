/**
 * The package as a user gets it: `npm pack` (which builds the bundles and the type declarations), the tarball
 * holding only dist/, README.md, LICENSE and package.json, installed globally into a temporary prefix from the npm
 * cache; that `minicode` runs `doctor` and `mcp serve` (an MCP client lists its tools and reads a file), and a
 * TypeScript consumer type-checks against the installed package's declarations (and is told off for a wrong type).
 *
 * The install is `--offline` (everything from the npm cache). A cache filled by `npm ci` holds the tarballs but
 * not always the registry's metadata a non-lockfile install resolves with: then the install is repeated with
 * `--prefer-offline` (tarballs from the cache, metadata fetched once) and the test says so.
 *
 * The install runs no dependency scripts (`--ignore-scripts`): with no binary download allowed, better-sqlite3's and
 * tree-sitter's scripts compile their addons from source, 3 minutes on a quiet 2-core machine and up to 9 in a loaded
 * CI, for the very files `npm ci` already compiled from the same versions. Each installed package that has an
 * install script gets the `build/` of the same package at the same version from this checkout's node_modules (a
 * version mismatch fails the test); packages shipping prebuilt binaries load them as they would anyway.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const repo = process.cwd()
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-package-")))
const prefix = path.join(root, "prefix")
const home = path.join(root, "home")
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_CACHE_HOME: path.join(home, ".cache"), npm_config_update_notifier: "false" }
const installed = path.join(prefix, "bin", "minicode")
let entries: ReadonlyArray<string> = []

/** npm, asynchronously: a pack and an install take minutes, and the test worker must keep answering vitest meanwhile. */
const npm = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ readonly status: number | null; readonly stderr: string }>((resolve) => {
    const child = spawn("npm", [...args], { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("close", (status) => resolve({ status, stderr }))
  })

beforeAll(async () => {
  // A copy of the sources to pack (npm pack runs the build, which must not replace the dist/ other tests run).
  const source = path.join(root, "source")
  fs.mkdirSync(source)
  for (const f of ["package.json", "package-lock.json", "README.md", "LICENSE", "tsconfig.json", "tsconfig.build.json"]) fs.copyFileSync(path.join(repo, f), path.join(source, f))
  for (const d of ["src", "scripts"]) fs.cpSync(path.join(repo, d), path.join(source, d), { recursive: true })
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(source, "node_modules"))
  const packed = await npm(["pack", "--pack-destination", root], source)
  expect(packed.status, packed.stderr).toBe(0)
  const tarball = path.join(root, "minicode-0.1.0.tgz")
  entries = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.trim().split("\n")
  fs.mkdirSync(home)
  const install = (cacheMode: string) => npm(["install", "-g", "--prefix", prefix, tarball, cacheMode, "--ignore-scripts", "--no-audit", "--no-fund"], root)
  let result = await install("--offline")
  if (result.status !== 0 && result.stderr.includes("ENOTCACHED")) {
    console.warn("npm cache lacks registry metadata for an offline install: repeating with --prefer-offline")
    result = await install("--prefer-offline")
  }
  expect(result.status, result.stderr).toBe(0)
  const built = lendBuilds(path.join(prefix, "lib", "node_modules", "minicode", "node_modules"), path.join(repo, "node_modules"))
  expect(built).toEqual(expect.arrayContaining(["better-sqlite3", "tree-sitter"]))
}, 1_800_000)

/**
 * For each package under `installed` (nested ones too) with an install script, copies `build/` from the package at
 * the same place under `checkout` (hoisting aside: found by name there), after checking both are the same version.
 * Returns the packages given a build.
 */
const lendBuilds = (installed: string, checkout: string): ReadonlyArray<string> => {
  const lent: Array<string> = []
  const visit = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue
      if (entry.name.startsWith("@")) {
        visit(path.join(dir, entry.name), path.join(rel, entry.name))
        continue
      }
      const pkgDir = path.join(dir, entry.name)
      const name = path.join(rel, entry.name)
      const manifest = path.join(pkgDir, "package.json")
      if (!fs.existsSync(manifest)) continue
      const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string; scripts?: Record<string, string> }
      const source = [path.join(checkout, name), path.join(checkout, entry.name)].find((d) => fs.existsSync(path.join(d, "build")))
      if ((pkg.scripts?.install ?? pkg.scripts?.postinstall) !== undefined && source !== undefined) {
        const theirs = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8")) as { version: string }
        expect(theirs.version, `${name} is ${pkg.version} installed, ${theirs.version} in the checkout`).toBe(pkg.version)
        fs.cpSync(path.join(source, "build"), path.join(pkgDir, "build"), { recursive: true })
        lent.push(name)
      }
      if (fs.existsSync(path.join(pkgDir, "node_modules"))) visit(path.join(pkgDir, "node_modules"), path.join(name, "node_modules"))
    }
  }
  visit(installed, "")
  return lent
}

// The prefix holds a whole installed package: removing it can take longer than the default hook timeout on a loaded machine.
afterAll(() => fs.promises.rm(root, { recursive: true, force: true }), 300_000)

describe("the packed package", () => {
  it("ships only dist/ (bundles and declarations), README.md, LICENSE and package.json", () => {
    const top = new Set(entries.map((e) => e.split("/").slice(1, 2).join("/")))
    expect([...top].sort()).toEqual(["LICENSE", "README.md", "dist", "package.json"])
    expect(entries).toContain("package/dist/bin.js")
    expect(entries).toContain("package/dist/index.js")
    expect(entries).toContain("package/dist/types/index.d.ts")
    expect(entries.some((e) => /\.test\.|\/test\/|\/bench\/|\/src\//.test(e))).toBe(false)
  })

  it("installed globally, `minicode doctor` and `minicode mcp serve` work from the prefix", async () => {
    const ws = path.join(root, "ws")
    fs.mkdirSync(ws)
    fs.writeFileSync(path.join(ws, "hello.txt"), "hello from the package\n")
    const doctor = spawnSync(installed, ["doctor", "--cwd", ws], { encoding: "utf8", env, timeout: 60_000 })
    expect(doctor.status, doctor.stderr).toBe(0)
    expect(doctor.stdout).toMatch(/^minicode 0\.1\.0 on node /)
    expect(doctor.stdout).toContain("bash guard: tree-sitter-bash")
    const client = new Client({ name: "package-test", version: "1.0.0" })
    await client.connect(new StdioClientTransport({ command: installed, args: ["mcp", "serve", "--cwd", ws], env: env as Record<string, string>, stderr: "pipe" }))
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "minicode", version: "0.1.0" })
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("read_file")
      const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } })
      expect(JSON.stringify(read.content)).toContain("hello from the package")
    } finally {
      await client.close()
    }
  })

  it("a TypeScript consumer type-checks against the installed declarations, and a wrong type is caught", () => {
    const consumer = path.join(root, "consumer")
    fs.mkdirSync(path.join(consumer, "node_modules"), { recursive: true })
    fs.symlinkSync(path.join(prefix, "lib", "node_modules", "minicode"), path.join(consumer, "node_modules", "minicode"))
    fs.writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }))
    fs.writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ["*.ts"] })
    )
    const good = [
      'import { createKernel, explain, runTool, type RunToolOptions, type RunToolResult } from "minicode"',
      'const options: RunToolOptions = { workspace: "/tmp", workMode: "BUILD" }',
      'const result: Promise<RunToolResult> = runTool({ ...options, tool: "read_file", args: { path: "a.txt" } })',
      "void result",
      'void explain({ ...options, tool: "bash", args: { command: "ls" } }).then((d) => d.decision)',
      "void createKernel(options)"
    ].join("\n")
    fs.writeFileSync(path.join(consumer, "good.ts"), good)
    const tsc = path.join(repo, "node_modules", "typescript", "bin", "tsc")
    const ok = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: consumer, encoding: "utf8", timeout: 300_000 })
    expect(ok.status, ok.stdout).toBe(0)
    fs.writeFileSync(path.join(consumer, "bad.ts"), 'import { runTool } from "minicode"\nconst n: number = runTool({ workspace: 1, tool: "read_file", args: {} })\nvoid n\n')
    const bad = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: consumer, encoding: "utf8", timeout: 300_000 })
    expect(bad.status).not.toBe(0)
    expect(bad.stdout).toMatch(/bad\.ts\(2,/)
    // Two whole type-checks: tens of seconds each on a loaded machine.
  }, 600_000)
})
