/**
 * Fuzz: thousands of random and mutated JSON-RPC messages into the BUILT `minicode mcp serve`. The server never
 * crashes, answers every request that has an id (except those the fuzz itself cancelled), and never writes
 * outside its workspace. The seed is fixed so a failure reproduces; change it to explore.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import { ensureBuilt, makeWorkspace, Raw, snapshot } from "./support/McpServeHarness.js"

const seed = 20261130
const count = 3000

beforeAll(() => ensureBuilt(), 120_000)

const ws = makeWorkspace()
afterAll(() => ws.cleanup())

const paths = fc.constantFrom(
  "a.txt",
  "dir/b.txt",
  "new.txt",
  "../outside.txt",
  "../escape.txt",
  "dir/../../escape.txt",
  path.join(ws.parent, "outside.txt"),
  path.join(ws.parent, "escape.txt"),
  "/tmp/minicode-fuzz-escape.txt",
  "~/.minicode-fuzz",
  ".env",
  "up/escape.txt",
  "",
  ".",
  "dir",
  "a.txt\u0000x"
)

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  paths,
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 })
)

const toolArgs = fc.oneof(
  fc.record({ path: paths, content: fc.string({ maxLength: 40 }) }),
  fc.record({ path: paths }),
  fc.record({ from: paths, to: paths, overwrite: fc.boolean() }),
  fc.record({ path: paths, old_string: fc.string({ maxLength: 8 }), new_string: fc.string({ maxLength: 8 }) }),
  fc.record({ pattern: fc.constantFrom("a", "b.*", "[", "**/*", "x|y"), path: paths }),
  fc.record({ command: fc.constantFrom("echo hi > ../escape.txt", "rm -rf /", "sleep 0.2", "cat /etc/passwd", "echo ok > inside.txt", "ls -la") }),
  fc.dictionary(fc.string({ maxLength: 10 }), value, { maxKeys: 4 }),
  value
)

const toolName = fc.oneof(fc.constantFrom(...Tools.toolNames), fc.constantFrom("nope", "srv.tool", "", "read_file ", "__proto__"), fc.string({ maxLength: 12 }))

const method = fc.oneof(
  fc.constantFrom("tools/call", "tools/call", "tools/call", "tools/list", "ping", "prompts/list", "prompts/get", "initialize", "resources/list", "logging/setLevel", "completion/complete"),
  fc.string({ maxLength: 16 })
)

const params = (m: string) =>
  m === "tools/call"
    ? fc.oneof(fc.record({ name: toolName, arguments: toolArgs }), fc.record({ name: toolName }), value)
    : m === "prompts/get"
      ? fc.oneof(fc.record({ name: fc.constantFrom("minicode-guide", "other") }), value)
      : fc.oneof(fc.constant(undefined), fc.record({}), value)

/** A structurally plausible message (request, notification or stray response). */
const wireId = (id: number) => (id % 3 === 0 ? `s${id}` : id)

/** A well-formed tool call (arguments may still be wrong): the bulk, so tools really run. */
const toolCall = (id: number) =>
  fc.record({ name: fc.constantFrom(...Tools.toolNames), arguments: toolArgs }).map((p) => ({ jsonrpc: "2.0", id: wireId(id), method: "tools/call", params: p }))

const message = (id: number) =>
  fc.oneof({ weight: 3, arbitrary: toolCall(id) }, { weight: 2, arbitrary: anyMessage(id) })

const anyMessage = (id: number) =>
  method.chain((m) =>
    fc.oneof(
      { weight: 6, arbitrary: params(m).map((p) => ({ jsonrpc: "2.0", id: wireId(id), method: m, ...(p === undefined ? {} : { params: p }) })) },
      { weight: 1, arbitrary: params(m).map((p) => ({ jsonrpc: "2.0", method: m.startsWith("notifications/") ? m : `notifications/${m}`, params: p })) },
      { weight: 1, arbitrary: value.map((v) => ({ jsonrpc: "2.0", id, result: v })) },
      { weight: 1, arbitrary: fc.nat(40).map((back) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: wireId(id - back) } })) },
      { weight: 1, arbitrary: fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0", 2), id: value, method: value, params: value }) }
    )
  )

/** Text-level mutations of a serialised message. */
const mutate = (text: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(text) },
    { weight: 1, arbitrary: fc.nat(text.length).map((n) => text.slice(0, n)) },
    { weight: 1, arbitrary: fc.tuple(fc.nat(text.length), fc.string({ minLength: 1, maxLength: 3 })).map(([n, s]) => text.slice(0, n) + s + text.slice(n)) },
    { weight: 1, arbitrary: fc.tuple(fc.nat(text.length), fc.nat(8)).map(([n, k]) => text.slice(0, n) + text.slice(n + k)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => s.replace(/\n/g, " ")) },
    { weight: 1, arbitrary: fc.constantFrom("null", "[]", "{}", "\"x\"", "42", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "{\"__proto__\":{\"id\":1}}") }
  )

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/** What the server owes a line: the id it must answer, or nothing. */
const owed = (line: string): { readonly id?: string | number; readonly cancels?: unknown } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    return {}
  }
  if (!isRecord(parsed)) return {}
  if (parsed["method"] === "notifications/cancelled") {
    return { cancels: isRecord(parsed["params"]) ? parsed["params"]["requestId"] : undefined }
  }
  const id = parsed["id"]
  if (!(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))) return {}
  if (!("method" in parsed) && ("result" in parsed || "error" in parsed)) return {}
  return { id }
}

describe("mcp serve fuzz", () => {
  it(`survives ${count} random and mutated messages, answers every request with an id, writes nothing outside`, async () => {
    fs.mkdirSync(path.join(ws.root, "dir"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "alpha\n")
    fs.writeFileSync(path.join(ws.root, "dir/b.txt"), "beta\n")
    fs.symlinkSync(ws.parent, path.join(ws.root, "up"))
    const outsideBefore = snapshot(ws.parent)
    delete outsideBefore[path.join("ws", "a.txt")]
    const r = new Raw(ws.root, ["--allow-all", "--scope", "git=write"])
    try {
      await r.init()
      const lines = fc.sample(
        fc.integer({ min: 0, max: 1_000_000 }).chain((n) => message(n + 1000).chain((m) => mutate(JSON.stringify(m)))),
        { numRuns: count, seed }
      )
      const expected = new Map<string, number>()
      const cancelled = new Set<string>()
      const answered = new Map<string, number>()
      let seen = 0
      const missing = () => {
        for (; seen < r.replies.length; seen++) {
          const key = JSON.stringify(r.replies[seen]?.id)
          answered.set(key, (answered.get(key) ?? 0) + 1)
        }
        return [...expected].filter(([id, n]) => !cancelled.has(id) && (answered.get(id) ?? 0) < n)
      }
      const settle = async (ms: number) => {
        const deadline = Date.now() + ms
        while (missing().length > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5))
      }
      // In batches below the in-flight cap, so calls really run instead of mostly meeting "busy".
      for (let i = 0; i < lines.length; i += 24) {
        for (const line of lines.slice(i, i + 24)) {
          const o = owed(line)
          if (o.id !== undefined) expected.set(JSON.stringify(o.id), (expected.get(JSON.stringify(o.id)) ?? 0) + 1)
          if (o.cancels !== undefined) cancelled.add(JSON.stringify(o.cancels))
          r.send(line.replace(/\n/g, " "))
        }
        await settle(10_000)
      }
      r.send({ jsonrpc: "2.0", id: "final-ping", method: "ping" })
      await r.reply("final-ping", 1, 60_000)
      await settle(30_000)
      expect(missing()).toEqual([])
      // The run was not vacuous: many requests were owed, and tool calls really ran.
      expect(expected.size).toBeGreaterThan(count / 3)
      expect(r.replies.filter((x) => isRecord(x.result) && "content" in x.result).length).toBeGreaterThan(count / 10)
      process.stderr.write(`fuzz: ${lines.length} lines, ${expected.size} owed ids, ${r.replies.length} replies, ${cancelled.size} cancels\n`)
      expect(r.exited).toBeUndefined()
      // No stack traces, no internal dumps.
      expect(r.replies.filter((x) => x.error !== undefined && /\n\s+at |"code":|ZodError/.test(x.error.message))).toEqual([])
      r.send({ jsonrpc: "2.0", id: "alive", method: "tools/list" })
      expect((await r.reply("alive")).result).toBeDefined()
      const outsideAfter = Object.fromEntries(Object.entries(snapshot(ws.parent)).filter(([p]) => !p.startsWith(`ws${path.sep}`)))
      const outsideBeforeOnly = Object.fromEntries(Object.entries(outsideBefore).filter(([p]) => !p.startsWith(`ws${path.sep}`)))
      expect(outsideAfter).toEqual(outsideBeforeOnly)
      expect(fs.existsSync("/tmp/minicode-fuzz-escape.txt")).toBe(false)
    } finally {
      r.kill()
    }
  }, 180_000)
})
