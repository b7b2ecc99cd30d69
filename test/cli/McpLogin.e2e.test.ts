/**
 * `minicode config mcp login ID` against a real local OAuth authorization server and MCP resource server (the SDK's
 * server-side auth helpers), the browser played by an HTTP client following the printed URL: discovery, dynamic
 * registration, PKCE, the resource parameter, state checked on the loopback redirect; tokens stored mode 600 in the
 * config folder and never printed; calls then carry them; logout forgets them.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OAuthMcpServer from "../support/OAuthMcpServer.mjs"

const bin = path.resolve("dist/bin.js")

interface Done {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, onStderr?: (all: string) => void) =>
  new Promise<Done>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
      onStderr?.(stderr)
    })
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

let server: OAuthMcpServer.Running
beforeAll(async () => {
  server = await OAuthMcpServer.start()
})
afterAll(() => server.close())

describe("config mcp login", () => {
  it("signs in through the browser's redirect, stores tokens privately, and calls carry them; logout forgets them", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcplogin-"))
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mcplogin-ws-"))
    const { BROWSER: _b, DISPLAY: _d, WAYLAND_DISPLAY: _w, ...rest } = process.env
    const env = { ...rest, XDG_CONFIG_HOME: home }
    const call = ["tool", "--cwd", workspace, "--work-mode", "BUILD", "--policy", "allow-all", "mcp_call", JSON.stringify({ server: "secure", tool: "echo", arguments: { text: "hi" } })]
    expect((await run(["config", "mcp", "add", "secure", "--url", server.url, "--allow-private"], env)).code).toBe(0)

    const before = await run(call, env)
    expect(before.stdout + before.stderr).toContain("this server needs sign-in: run `minicode config mcp login secure`")

    let browsed: Promise<void> | undefined
    const wrongState: Array<number> = []
    const login = await run(["config", "mcp", "login", "secure"], env, (all) => {
      const m = /https?:\/\/\S+\/authorize\S*/.exec(all)
      if (m === null || browsed !== undefined) return
      browsed = (async () => {
        const authorize = await fetch(m[0], { redirect: "manual" })
        const location = authorize.headers.get("location") ?? ""
        const callback = new URL(location)
        expect(callback.hostname).toBe("127.0.0.1")
        // A redirect with another state is refused; the real one signs in.
        const forged = new URL(callback)
        forged.searchParams.set("state", "forged")
        wrongState.push((await fetch(forged)).status)
        expect((await fetch(callback)).status).toBe(200)
      })()
    })
    await browsed
    expect(login.code, login.stdout + login.stderr).toBe(0)
    expect(login.stdout).toContain("signed in to secure")
    expect(wrongState).toEqual([400])
    const authorizeUrl = new URL(/https?:\/\/\S+\/authorize\S*/.exec(login.stderr)?.[0] ?? "http://x")
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorizeUrl.searchParams.get("resource")).toBe(server.url)
    expect(server.resources).toContain(server.url)

    const file = path.join(home, "minicode", "mcp-auth", "secure.json")
    expect(fs.existsSync(file)).toBe(true)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const stored: { tokens: { access_token: string } } = JSON.parse(fs.readFileSync(file, "utf8"))
    const token = stored.tokens.access_token
    expect(token.length).toBeGreaterThan(10)
    expect(login.stdout + login.stderr).not.toContain(token)
    // Nothing of the sign-in is in the workspace (its .minicode holds the journal of the first call only).
    const inWorkspace = fs.readdirSync(workspace, { recursive: true }).map(String)
    expect(inWorkspace.filter((f) => f.includes("mcp-auth"))).toEqual([])
    for (const f of inWorkspace) {
      const full = path.join(workspace, f)
      if (fs.statSync(full).isFile()) expect(fs.readFileSync(full).includes(token)).toBe(false)
    }

    const after = await run(call, env)
    expect(after.stdout).toContain("secure echo: hi")
    expect(after.stdout + after.stderr).not.toContain(token)

    expect((await run(["config", "mcp", "logout", "secure"], env)).stdout).toContain("signed out of secure")
    expect(fs.existsSync(file)).toBe(false)
    const again = await run(call, env)
    expect(again.stdout + again.stderr).toContain("needs sign-in")
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(workspace, { recursive: true, force: true })
  }, 120_000)

  it("step-up: a call refused for more scope (403 insufficient_scope) says so, and the next login requests that scope", async () => {
    const stepUp = await OAuthMcpServer.start({ stepUp: true })
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcplogin-up-"))
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mcplogin-up-ws-"))
    try {
      const { BROWSER: _b, DISPLAY: _d, WAYLAND_DISPLAY: _w, ...rest } = process.env
      const env = { ...rest, XDG_CONFIG_HOME: home }
      const call = ["tool", "--cwd", workspace, "--work-mode", "BUILD", "--policy", "allow-all", "mcp_call", JSON.stringify({ server: "up", tool: "echo", arguments: { text: "hi" } })]
      expect((await run(["config", "mcp", "add", "up", "--url", stepUp.url, "--allow-private"], env)).code).toBe(0)
      /** A login whose "browser" follows the printed URL to the loopback callback; the scope it asked for. */
      const signIn = async (...more: ReadonlyArray<string>) => {
        let browsed: Promise<number> | undefined
        const login = await run(["config", "mcp", "login", "up", ...more], env, (all) => {
          const m = /https?:\/\/\S+\/authorize\S*/.exec(all)
          if (m !== null && browsed === undefined) browsed = fetch(m[0]).then((r) => r.status)
        })
        expect(await browsed).toBe(200)
        expect(login.code, login.stdout + login.stderr).toBe(0)
        expect(login.stdout).toContain("signed in to up")
        const asked = new URL(/https?:\/\/\S+\/authorize\S*/.exec(login.stderr)?.[0] ?? "http://x").searchParams
        return { scope: asked.get("scope"), redirect: asked.get("redirect_uri") ?? "" }
      }
      // The first login takes the scope from the server's 401 (mcp:tools), not all it advertises.
      const first = await signIn()
      expect(first.scope).toBe("mcp:tools")
      const listed = await run(["tool", "--cwd", workspace, "mcp_list", JSON.stringify({ server: "up" })], env)
      expect(listed.stdout).toContain("up.echo")
      const refused = await run(call, env)
      expect(refused.code).toBe(1)
      expect(refused.stdout + refused.stderr).toContain('this server needs sign-in: run `minicode config mcp login up` (it asks for scope "mcp:tools mcp:write"')
      // The next login authorizes afresh for the wider scope (no "already signed in"), and the call then runs.
      // …on the same loopback port, which the client was registered with.
      const second = await signIn()
      expect(second).toEqual({ scope: "mcp:tools mcp:write", redirect: first.redirect })
      const after = await run(call, env)
      expect(after.stdout, after.stderr).toContain("secure echo: hi")
      // That port taken by now: the login listens elsewhere and registers the client again (this server accepts
      // only registered redirect URIs), and still signs in.
      const squatter = http.createServer()
      await new Promise<void>((resolve) => squatter.listen(Number(new URL(first.redirect).port), "127.0.0.1", resolve))
      try {
        const third = await signIn("--scope", "mcp:tools mcp:write")
        expect(third.redirect).not.toBe(first.redirect)
        expect((await run(call, env)).stdout).toContain("secure echo: hi")
      } finally {
        await new Promise<void>((resolve) => squatter.close(() => resolve()))
      }
      const stored: Record<string, unknown> = JSON.parse(fs.readFileSync(path.join(home, "minicode", "mcp-auth", "up.json"), "utf8"))
      expect(stored["wantedScope"]).toBeUndefined()
    } finally {
      await stepUp.close()
      fs.rmSync(home, { recursive: true, force: true })
      fs.rmSync(workspace, { recursive: true, force: true })
    }
  }, 120_000)

  it("--client-credentials without a secret or key, or a key without it, is a usage error that says what is missing", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcplogin-cc-"))
    try {
      const env = { ...process.env, XDG_CONFIG_HOME: home }
      expect((await run(["config", "mcp", "add", "m2m", "--url", server.url, "--allow-private"], env)).code).toBe(0)
      const bare = await run(["config", "mcp", "login", "m2m", "--client-credentials", "--client-id", "svc"], env)
      expect(bare.code).toBe(2)
      expect(bare.stderr).toContain("--client-credentials needs --client-id and one of --client-secret or --private-key-file")
      const stray = await run(["config", "mcp", "login", "m2m", "--private-key-file", "key.pem"], env)
      expect(stray.code).toBe(2)
      expect(stray.stderr).toContain("--private-key-file and --signing-alg go with --client-credentials")
      expect(fs.existsSync(path.join(home, "minicode", "mcp-auth", "m2m.json"))).toBe(false)
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  }, 60_000)
})
