/**
 * Issue 46 item 8: a Go module with a dependency, through the built CLI and the language server's default sandbox.
 * The dependency lives only in a module cache the test makes under the test's home (`$GOPATH/pkg/mod`, laid out as
 * `go mod download` leaves it, its go.sum hashes computed here and the fixture checked by the host's `go build`
 * first); the sandbox's home is an empty tmpfs, so gopls found nothing ("no package metadata") until the sandbox
 * showed the cache read-only. Credentials beside the caches (`~/.netrc`, `~/.cargo/credentials.toml`,
 * `~/.git-credentials`) stay invisible: a stand-in "server" lists and cats them from inside, and its stderr comes
 * back in the error of the call it failed.
 */
import { createHash } from "node:crypto"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"
import { cacheWorkspace } from "./support/LspChain.js"

const has = (cmd: string, args: ReadonlyArray<string>) => spawnSync(cmd, [...args], { stdio: "ignore" }).status === 0
const hasGo = has("go", ["version"]) && has("gopls", ["version"])
const cleanups: Array<() => void> = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))
beforeAll(() => ensureBuilt())

const put = (file: string, content: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}

/** golang.org/x/mod/sumdb/dirhash Hash1: sha256 over "sha256(file)  name\n" lines, names sorted. */
const hash1 = (files: ReadonlyArray<readonly [string, string]>) => {
  const h = createHash("sha256")
  for (const [name, content] of [...files].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    h.update(`${createHash("sha256").update(content).digest("hex")}  ${name}\n`)
  }
  return `h1:${h.digest("base64")}`
}

const canary = "CANARY-toolchain-cache-credential"

/** A home holding a module cache with example.com/greet v1.0.0, credentials beside it, and a workspace that uses it. */
const fixture = () => {
  const base = cacheWorkspace("gocache-")
  cleanups.push(base.done)
  const home = path.join(base.root, "home")
  const gopath = path.join(home, "go")
  const modcache = path.join(gopath, "pkg", "mod")
  const mod = "module example.com/greet\n\ngo 1.19\n"
  const src = "package greet\n\n// Hello says hello to name.\nfunc Hello(name string) string { return \"hello \" + name }\n"
  const prefix = "example.com/greet@v1.0.0"
  put(path.join(modcache, prefix, "go.mod"), mod)
  put(path.join(modcache, prefix, "greet.go"), src)
  const zipHash = hash1([[`${prefix}/go.mod`, mod], [`${prefix}/greet.go`, src]])
  const modHash = hash1([["go.mod", mod]])
  const dl = path.join(modcache, "cache", "download", "example.com", "greet", "@v")
  put(path.join(dl, "v1.0.0.mod"), mod)
  put(path.join(dl, "v1.0.0.info"), JSON.stringify({ Version: "v1.0.0", Time: "2026-01-01T00:00:00Z" }))
  put(path.join(dl, "v1.0.0.ziphash"), zipHash)
  put(path.join(dl, "list"), "v1.0.0\n")
  // Credentials beside the caches, each holding the canary.
  put(path.join(home, ".netrc"), `machine example.com login me password ${canary}\n`)
  put(path.join(home, ".git-credentials"), `https://me:${canary}@example.com\n`)
  put(path.join(home, ".cargo", "credentials.toml"), `[registry]\ntoken = "${canary}"\n`)
  put(path.join(home, ".cargo", "registry", "index", "README"), "a cargo registry index\n")
  const ws = path.join(base.root, "ws")
  put(path.join(ws, "go.mod"), "module example.com/app\n\ngo 1.19\n\nrequire example.com/greet v1.0.0\n")
  put(path.join(ws, "go.sum"), `example.com/greet v1.0.0 ${zipHash}\nexample.com/greet v1.0.0/go.mod ${modHash}\n`)
  put(path.join(ws, "main.go"), 'package main\n\nimport "example.com/greet"\n\nfunc main() { println(greet.Hello("you")) }\n')
  put(path.join(ws, "notes.txt"), "a file for the stand-in server\n")
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    GOPATH: gopath,
    GOFLAGS: "-mod=mod",
    GOPROXY: "off",
    GOCACHE: path.join(base.root, "gocache"),
    MINICODE_LSP_BROKER: "off"
  }
  delete env["GOMODCACHE"]
  delete env["CARGO_HOME"]
  delete env["XDG_CACHE_HOME"]
  // The fixture is a real module cache: the host's go builds the workspace from it, offline.
  execFileSync("go", ["build", "-o", path.join(base.root, "app"), "."], { cwd: ws, env, stdio: "pipe" })
  return { home, modcache, ws, env }
}

const tool = (ws: string, env: NodeJS.ProcessEnv, name: string, args: unknown) =>
  runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws, "--work-mode", "BUILD", "--json"], { env, timeoutMs: 200_000 })

const addServer = (env: NodeJS.ProcessEnv, ext: string, command: string, args: ReadonlyArray<string>) => {
  const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ext, "--global", "--command", command, ...args.flatMap((a) => ["--arg", a]), "--timeout", "initialize=90000", "--timeout", "request=90000", "--timeout", "load=90000"], { env, encoding: "utf8" })
  expect(add.status, add.stderr).toBe(0)
}

if (unavailable !== undefined && mustRun) {
  describe("toolchain caches", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined || !hasGo)(title("a sandboxed gopls on a module whose dependency is in the module cache"), () => {
  it("answers definition and hover across the dependency", async () => {
    const { modcache, ws, env } = fixture()
    addServer(env, ".go", "gopls", [])
    const def = await tool(ws, env, "lsp_definition", { path: "main.go", symbol: "Hello" })
    expect(def.stdout + def.stderr).toContain(path.join(modcache, "example.com/greet@v1.0.0/greet.go:4:6"))
    const hover = await tool(ws, env, "lsp_hover", { path: "main.go", symbol: "Hello" })
    expect(hover.stdout + hover.stderr).toContain("func greet.Hello(name string) string")
    expect(hover.stdout).toContain("Hello says hello to name.")
  }, 400_000)

  it("shows the caches read-only and never the credentials beside them", async () => {
    const { home, modcache, ws, env } = fixture()
    // A stand-in server that reports what it sees on stderr and exits: the call's error carries its last lines.
    const script =
      `echo "mod=$(ls ${modcache}/example.com) cargo=$(ls -A ${home}/.cargo | tr '\\n' ,) registry=$(ls ${home}/.cargo/registry)` +
      ` creds=$(cat ${home}/.netrc ${home}/.git-credentials ${home}/.cargo/credentials.toml 2>&1 | tr '\\n' ,)` +
      ` write=$(touch ${modcache}/planted 2>&1 && echo WROTE) gomodcache=$GOMODCACHE" >&2; exit 3`
    addServer(env, ".txt", "/bin/sh", ["-c", script])
    const r = await tool(ws, env, "lsp_hover", { path: "notes.txt", line: 1, character: 1 })
    const out = r.stdout + r.stderr
    expect(out).toContain("mod=greet@v1.0.0 ")
    // ~/.cargo holds only the registry: credentials.toml beside it is not there.
    expect(out).toContain("cargo=registry, registry=index ")
    expect(out).toContain(`gomodcache=${modcache}`)
    expect(out).toMatch(/\.netrc: No such file or directory/)
    expect(out).toMatch(/\.git-credentials: No such file or directory/)
    expect(out).toMatch(/credentials\.toml: No such file or directory/)
    expect(out).toContain("Read-only file system")
    expect(out).not.toContain(canary)
    expect(out).not.toContain("WROTE")
    expect(fs.existsSync(path.join(modcache, "planted"))).toBe(false)
  }, 200_000)
})
