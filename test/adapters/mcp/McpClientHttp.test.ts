/**
 * Streamable HTTP against server-everything (`streamableHttp` mode): a server restart (old session → 400) is
 * re-initialised once, closing sends DELETE for the session, task-only tools say so; a 401 asks for sign-in and
 * is not taken for an old HTTP+SSE server.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SdkMcpTransport from "../../../src/adapters/mcp/SdkMcpTransport.js"
import * as McpFormat from "../../../src/domain/mcp/McpFormat.js"
import { McpTransport } from "../../../src/ports/McpTransport.js"

const root = path.resolve(import.meta.dirname, "../../..")
const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
const text = (c: McpFormat.McpContent) => McpFormat.content(c)

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = http.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })

interface Everything {
  readonly child: ChildProcess
  readonly out: { text: string }
}

/** server-everything over Streamable HTTP on `port`, once it listens. */
const startEverything = (port: number) =>
  new Promise<Everything>((resolve, reject) => {
    const child = spawn(process.execPath, [everything, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] })
    const out = { text: "" }
    child.stdout.on("data", (d: Buffer) => (out.text += d.toString()))
    child.stderr.on("data", (d: Buffer) => {
      if (d.toString().includes("listening")) resolve({ child, out })
    })
    child.on("exit", (code) => reject(new Error(`server-everything exited ${code}`)))
  })

const stop = (e: Everything) =>
  new Promise<void>((resolve) => {
    if (e.child.exitCode !== null) return resolve()
    e.child.once("exit", () => resolve())
    e.child.kill("SIGTERM")
  })

describe("Streamable HTTP lifecycle (server-everything)", () => {
  it.live("restart → re-initialised once; close → DELETE of the session; task-only tools say so", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(freePort)
      const url = `http://127.0.0.1:${port}/mcp`
      const first = yield* Effect.promise(() => startEverything(port))
      let second: Everything | undefined
      yield* Effect.gen(function* () {
        const mcp = yield* McpTransport
        const [listing] = yield* mcp.list("web")
        assert.isUndefined(listing?.error)
        assert.include(listing?.tools.map((t) => t.name) ?? [], "get-roots-list")
        assert.strictEqual(text(yield* mcp.call("web", "echo", { message: "one" })), "Echo: one")
        const tasky = yield* Effect.either(mcp.call("web", "simulate-research-query", { topic: "x" }))
        assert.isTrue(tasky._tag === "Left" && tasky.left.message.includes("task-only"))
        // The server restarts and forgets every session: the old session id now gets a 400.
        yield* Effect.promise(() => stop(first))
        second = yield* Effect.promise(() => startEverything(port))
        assert.strictEqual(text(yield* mcp.call("web", "echo", { message: "two" })), "Echo: two")
        assert.notInclude(second.out.text, "session termination")
      }).pipe(Effect.provide(Layer.fresh(SdkMcpTransport.layer({ servers: { web: { url, allowPrivate: true } }, cwd: root }))))
      // The layer's scope is closed: its session was ended with DELETE.
      const ended = second
      assert.isDefined(ended)
      if (ended !== undefined) {
        for (let i = 0; i < 50 && !ended.out.text.includes("session termination"); i++) yield* Effect.sleep("20 millis")
        assert.include(ended.out.text, "Received session termination request")
        yield* Effect.promise(() => stop(ended))
      }
    })
  )

  it.live("a 401 says to sign in, and is not retried as HTTP+SSE", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`)
        res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"' }).end()
      })
      yield* Effect.promise(() => new Promise<void>((r) => server.listen(0, "127.0.0.1", r)))
      const { port } = server.address() as AddressInfo
      const [listing] = yield* Effect.flatMap(McpTransport, (mcp) => mcp.list("locked")).pipe(
        Effect.provide(SdkMcpTransport.layer({ servers: { locked: { url: `http://127.0.0.1:${port}/mcp`, allowPrivate: true } } }))
      )
      server.close()
      assert.include(listing?.error ?? "", "this server needs sign-in: run `minicode config mcp login locked`")
      assert.notInclude(listing?.error ?? "", "SSE")
      assert.isFalse(seen.some((s) => s.startsWith("GET")))
    })
  )
})
