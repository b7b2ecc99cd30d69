/**
 * `config mcp login` checks the authorization server's issuer, as the mix-up defences require: metadata that names
 * another issuer than the one its URL was built from is not used (RFC 8414 §3.3), and an authorization response whose
 * `iss` is not that issuer, or lacks one the server said it sends, is not accepted (RFC 9207). Dynamic registration
 * says `application_type: native`. A real local authorization server (the SDK's), the built CLI, an HTTP client
 * following the printed URL as the browser.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as OAuthMcpServer from "../support/OAuthMcpServer.mjs"

const bin = path.resolve("dist/bin.js")
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

interface Login {
  readonly code: number | null
  readonly out: string
  /** What the loopback callback answered the "browser", when it got that far. */
  readonly callback: number | undefined
}

const login = async (options: Parameters<typeof OAuthMcpServer.start>[0]): Promise<Login & { readonly server: OAuthMcpServer.Running }> => {
  const server = await OAuthMcpServer.start(options)
  cleanups.push(() => server.close())
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpiss-"))
  cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }))
  const { BROWSER: _b, DISPLAY: _d, WAYLAND_DISPLAY: _w, ...rest } = process.env
  const env = { ...rest, XDG_CONFIG_HOME: home }
  const add = spawn(process.execPath, [bin, "config", "mcp", "add", "secure", "--url", server.url, "--allow-private"], { env, stdio: "ignore" })
  await new Promise((r) => add.on("close", r))
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "config", "mcp", "login", "secure"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let browsed: Promise<number | undefined> | undefined
    const take = (d: Buffer) => {
      out += d.toString()
      const m = /https?:\/\/\S+\/authorize\S*/.exec(out)
      if (m === null || browsed !== undefined) return
      browsed = (async () => {
        const authorize = await fetch(m[0], { redirect: "manual" })
        const location = authorize.headers.get("location")
        return location === null ? undefined : (await fetch(location)).status
      })()
    }
    child.stdout.on("data", take)
    child.stderr.on("data", take)
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("close", async (code) => {
      clearTimeout(timer)
      resolve({ code, out, callback: browsed === undefined ? undefined : await browsed, server })
    })
  })
}

describe("config mcp login: the issuer (mix-up defences)", () => {
  it("metadata naming another issuer is not used: no browser step, a sentence, exit non-zero", async () => {
    const r = await login({ metadataIssuer: "https://evil.example" })
    expect(r.code).not.toBe(0)
    expect(r.out).toContain('names issuer "https://evil.example"')
    expect(r.out).toContain("RFC 8414")
    expect(r.out).not.toMatch(/\/authorize/)
    expect(r.server.registrations).toEqual([])
  }, 90_000)

  it("an authorization response from another issuer is refused at the callback", async () => {
    const r = await login({ responseIss: "https://evil.example/" })
    expect(r.code).not.toBe(0)
    expect(r.callback).toBe(400)
    expect(r.out).toContain('came from issuer "https://evil.example/"')
    expect(r.out).toContain("RFC 9207")
  }, 90_000)

  it("a server that says it sends iss must send it", async () => {
    const r = await login({ issSupported: true, responseIss: null })
    expect(r.code).not.toBe(0)
    expect(r.callback).toBe(400)
    expect(r.out).toContain("has no iss parameter")
  }, 90_000)

  it("the right iss signs in; registration says application_type native", async () => {
    const r = await login({ issSupported: true, responseIss: "self" })
    expect(r.code, r.out).toBe(0)
    expect(r.callback).toBe(200)
    expect(r.out).toContain("signed in to secure")
    expect(r.server.registrations[0]?.["application_type"]).toBe("native")
  }, 90_000)
})
