/**
 * End to end, raw JSON-RPC on the BUILT `minicode mcp serve`: what a client that reads schemas loosely or speaks an
 * older protocol sends. Requests before initialize are refused (ping aside); an unknown tools/list cursor is -32602;
 * under 2025-03-26 a batch is answered as one batch (later versions refuse batches); numbers sent as strings are
 * coerced where the schema says integer, or refused naming the field.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, makeWorkspace, Raw } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const start = () => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  fs.writeFileSync(path.join(ws.root, "a.txt"), "one\ntwo\nthree\n")
  const raw = new Raw(ws.root, ["--sandbox", "none"])
  cleanups.push(() => raw.kill())
  return { ...ws, raw }
}

const textOf = (result: unknown) => JSON.stringify(result)

describe("mcp serve protocol edges (built binary, raw JSON-RPC)", () => {
  it("refuses requests before initialize (ping is answered), then serves once initialized", async () => {
    const { raw } = start()
    raw.send({ jsonrpc: "2.0", id: "early", method: "tools/list" })
    raw.send({ jsonrpc: "2.0", id: "early-call", method: "tools/call", params: { name: "read_file", arguments: { path: "a.txt" } } })
    raw.send({ jsonrpc: "2.0", id: "p", method: "ping" })
    expect((await raw.reply("early")).error).toMatchObject({ code: -32600, message: expect.stringContaining("before initialize") })
    expect((await raw.reply("early-call")).error).toMatchObject({ code: -32600 })
    expect((await raw.reply("p")).result).toEqual({})
    await raw.init()
    raw.send({ jsonrpc: "2.0", id: "late", method: "tools/list" })
    expect((await raw.reply("late")).result).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: "read_file" })]) })
  })

  it("answers tools/list with an unknown cursor with -32602", async () => {
    const { raw } = start()
    await raw.init()
    raw.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: "nope" } })
    expect((await raw.reply(1)).error).toMatchObject({ code: -32602, message: expect.stringContaining("cursor") })
  })

  it("under 2025-03-26 answers a batch with one batch (notifications get nothing); under 2025-06-18 refuses it", async () => {
    const { raw } = start()
    expect((await raw.init("2025-03-26")).result).toMatchObject({ protocolVersion: "2025-03-26" })
    raw.send([
      { jsonrpc: "2.0", id: "b1", method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", id: "b2", method: "tools/call", params: { name: "read_file", arguments: { path: "a.txt" } } },
      { jsonrpc: "2.0", id: "b3", method: "no/such" },
      { nonsense: true }
    ])
    await raw.reply("b2")
    expect(raw.batches).toHaveLength(1)
    const batch = raw.batches[0] ?? []
    expect(batch.map((r) => r.id)).toEqual(expect.arrayContaining(["b1", "b2", "b3", null]))
    expect(batch).toHaveLength(4)
    expect(textOf(batch.find((r) => r.id === "b2")?.result)).toContain("two")
    expect(batch.find((r) => r.id === "b3")?.error?.code).toBe(-32601)
    const modern = start().raw
    await modern.init("2025-06-18")
    modern.send([{ jsonrpc: "2.0", id: "m1", method: "tools/list" }])
    expect((await modern.reply(null)).error).toMatchObject({ code: -32600, message: expect.stringContaining("batches are not supported") })
    expect(modern.batches).toHaveLength(0)
  })

  it("coerces a number sent as a string where the schema says integer, and refuses one that is not, naming the field", async () => {
    const { raw } = start()
    await raw.init()
    raw.call(1, "read_file", { path: "a.txt", offset: "2", limit: "1" })
    const ok = await raw.reply(1)
    expect(textOf(ok.result)).toContain("two")
    expect(textOf(ok.result)).not.toContain("three")
    expect(textOf(ok.result)).not.toContain('"isError":true')
    raw.call(2, "read_file", { path: "a.txt", offset: "second" })
    const bad = await raw.reply(2)
    expect(textOf(bad.result)).toContain('"isError":true')
    expect(textOf(bad.result)).toContain("offset: expected an integer")
  })
})
