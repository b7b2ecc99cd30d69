// Dev-only: exposes `minicode mcp serve` (stdio) over Streamable HTTP, so the MCP conformance suite's server
// scenarios (which take a URL) can drive it. One HTTP session = one `mcp serve` child, spawned on `initialize` and
// ended on DELETE, on an idle time-out, or when the bridge exits. Messages pass through unchanged; a child's
// notification or request is sent on the stream of the client request it belongs to (progress by its token, the
// rest by the request in flight), else on the session's GET stream.
//
// Usage: node scripts/conformance/bridge.mjs [--port N] [--cwd DIR] [--bin dist/bin.js] [-- extra `mcp serve` args]
// Prints `listening http://127.0.0.1:PORT/mcp` once ready.
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

const parseArgs = (argv) => {
  const o = { port: 0, cwd: process.cwd(), bin: path.join(repo, "dist", "bin.js"), serveArgs: [], idleMs: 60_000 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === "--") {
      o.serveArgs = argv.slice(i + 1)
      break
    }
    const v = argv[i + 1]
    if (a === "--port") (o.port = Number(v)), i++
    else if (a === "--cwd") (o.cwd = path.resolve(v)), i++
    else if (a === "--bin") (o.bin = path.resolve(v)), i++
    else if (a === "--idle-ms") (o.idleMs = Number(v)), i++
    else throw new Error(`bridge: unknown argument ${a}`)
  }
  return o
}

/** One HTTP session bridged to one `mcp serve` child. */
const openSession = (o, onInit, onClosed) => {
  const child = new StdioClientTransport({
    command: process.execPath,
    args: [o.bin, "mcp", "serve", "--cwd", o.cwd, ...o.serveArgs],
    env: { ...process.env },
    stderr: "pipe",
    cwd: o.cwd
  })
  const inFlight = [] // client request ids, oldest first
  const byToken = new Map() // progressToken -> client request id
  let timer
  const front = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => onInit(sid, session),
    onsessionclosed: () => close()
  })
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    clearTimeout(timer)
    await child.close().catch(() => undefined)
    await front.close().catch(() => undefined)
    onClosed(front.sessionId)
  }
  const touch = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void close(), o.idleMs)
    timer.unref()
  }
  front.onmessage = (message) => {
    touch()
    if ("id" in message && "method" in message) {
      inFlight.push(message.id)
      const token = message.params?._meta?.progressToken
      if (token !== undefined) byToken.set(token, message.id)
    }
    child.send(message).catch((e) => process.stderr.write(`bridge: to child: ${e.message}\n`))
  }
  child.onmessage = (message) => {
    touch()
    if ("id" in message && !("method" in message)) {
      const i = inFlight.indexOf(message.id)
      if (i >= 0) inFlight.splice(i, 1)
      for (const [token, id] of byToken) if (id === message.id) byToken.delete(token)
      return void front.send(message).catch((e) => process.stderr.write(`bridge: to client: ${e.message}\n`))
    }
    const token = message.params?.progressToken
    const related = token !== undefined && byToken.has(token) ? byToken.get(token) : inFlight.at(-1)
    front.send(message, related === undefined ? {} : { relatedRequestId: related }).catch((e) => process.stderr.write(`bridge: to client: ${e.message}\n`))
  }
  child.onclose = () => void close()
  child.onerror = (e) => process.stderr.write(`bridge: child: ${e.message}\n`)
  child.stderr?.on("data", (d) => process.stderr.write(d))
  touch()
  const session = { front, child, close, start: () => child.start() }
  return session
}

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const jsonError = (res, status, message) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}

export const start = async (o) => {
  const sessions = new Map()
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      if (url.pathname !== "/mcp") return res.writeHead(404).end()
      let body
      if (req.method === "POST") {
        const text = await readBody(req)
        try {
          body = JSON.parse(text)
        } catch {
          return jsonError(res, 400, "Parse error: the body is not JSON")
        }
      }
      const id = req.headers["mcp-session-id"]
      const known = typeof id === "string" ? sessions.get(id) : undefined
      if (known !== undefined) return await known.front.handleRequest(req, res, body)
      if (typeof id === "string") return jsonError(res, 404, "Session not found")
      const initializing = req.method === "POST" && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))
      if (!initializing) return jsonError(res, 400, "Bad Request: no valid session id")
      const session = openSession(o, (sid, s) => sessions.set(sid, s), (sid) => sid !== undefined && sessions.delete(sid))
      await session.start()
      await session.front.handleRequest(req, res, body)
    } catch (e) {
      process.stderr.write(`bridge: ${e?.stack ?? e}\n`)
      if (!res.headersSent) jsonError(res, 500, "bridge error")
    }
  })
  await new Promise((resolve) => server.listen(o.port, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${server.address().port}/mcp`
  const stop = async () => {
    await Promise.all([...sessions.values()].map((s) => s.close()))
    await new Promise((resolve) => server.close(() => resolve()))
    server.closeAllConnections?.()
  }
  return { url, stop }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bridge = await start(parseArgs(process.argv.slice(2)))
  console.log(`listening ${bridge.url}`)
  const quit = () => void bridge.stop().finally(() => process.exit(0))
  process.on("SIGTERM", quit)
  process.on("SIGINT", quit)
}
