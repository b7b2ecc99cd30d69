// The stdio transport of `mcp serve` over real Node streams: framing, and back-pressure when the client stops reading.
import { describe, expect, it } from "@effect/vitest"
import { PassThrough, Writable } from "node:stream"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as StdioLineTransport from "../../../src/adapters/mcp/StdioLineTransport.js"

/** A pipe whose reader has stopped: writes are held until `release()`, as when the client does not read stdout. */
const stalledOutput = () => {
  const held: Array<() => void> = []
  const received: Array<string> = []
  const output = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      held.push(() => {
        received.push(chunk.toString("utf8"))
        callback()
      })
    }
  })
  const release = () => {
    // Each callback lets the stream hand over the next chunk, which is held in turn: release until nothing is left.
    while (held.length > 0) held.shift()?.()
  }
  return { output, received, release }
}

const asMessage = (value: unknown) => value as JSONRPCMessage
const reply = (id: number, text: string): JSONRPCMessage => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } })
const settled = (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 50))])

describe("StdioLineTransport", () => {
  it("delivers a message split across chunks and answers an oversized line with its id, without reading it whole", async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const messages: Array<unknown> = []
    const transport = StdioLineTransport.make({ input, output, maxLineBytes: 64, parse: asMessage, onInputEnd: () => {} })
    transport.onmessage = (m) => messages.push(m)
    await transport.start()
    input.write('{"jsonrpc":"2.0","id":1,')
    input.write('"method":"ping"}\n')
    input.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"${"a".repeat(200)}"}}\n`)
    await new Promise((r) => setImmediate(r))
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }])
    const answer = JSON.parse(String(output.read()).trim())
    expect(answer.id).toBe(7)
    expect(answer.error.message).toMatch(/over the 64-byte limit/)
    expect(transport.refused()).toBe(1)
    await transport.close()
  })

  it("does not hold a reply for 'drain' while the queue is small, though the stream asked for it", async () => {
    const input = new PassThrough()
    const { output, received, release } = stalledOutput()
    const transport = StdioLineTransport.make({ input, output, maxLineBytes: 1024, congestedBytes: 4096, parse: asMessage, onInputEnd: () => {} })
    await transport.start()
    // Each reply is over the stream's 16-byte high-water mark: `write` returns false every time.
    for (let id = 1; id <= 5; id++) expect(await settled(transport.send(reply(id, "x".repeat(100))))).toBe(true)
    expect(received).toEqual([])
    release()
    expect(received.join("").trim().split("\n").map((l) => JSON.parse(l).id)).toEqual([1, 2, 3, 4, 5])
    await transport.close()
  })

  it("when the client stops reading, holds replies and stops reading requests until the queue drains", async () => {
    const input = new PassThrough()
    const { output, received, release } = stalledOutput()
    const messages: Array<unknown> = []
    const transport = StdioLineTransport.make({ input, output, maxLineBytes: 1024, congestedBytes: 1000, parse: asMessage, onInputEnd: () => {} })
    transport.onmessage = (m) => messages.push(m)
    await transport.start()
    const sends = Array.from({ length: 4 }, (_, i) => transport.send(reply(i + 1, "y".repeat(400))))
    // Past 1000 queued bytes the last replies wait, and requests stay in the pipe.
    expect(await settled(Promise.all(sends))).toBe(false)
    expect(await settled(sends[0] ?? Promise.resolve())).toBe(true)
    input.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n')
    await new Promise((r) => setTimeout(r, 20))
    expect(messages).toEqual([])
    release()
    expect(await settled(Promise.all(sends))).toBe(true)
    await new Promise((r) => setTimeout(r, 20))
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 9, method: "ping" }])
    expect(received.join("").trim().split("\n")).toHaveLength(4)
    await transport.close()
  })

  it("when the client goes away while replies wait, lets them go and ends the connection (the server then drains and exits)", async () => {
    const input = new PassThrough()
    const { output } = stalledOutput()
    let ended = 0
    const errors: Array<string> = []
    const transport = StdioLineTransport.make({ input, output, maxLineBytes: 1024, congestedBytes: 100, parse: asMessage, onInputEnd: () => ended++ })
    transport.onerror = (e) => errors.push(e.message)
    await transport.start()
    const held = transport.send(reply(1, "z".repeat(400)))
    expect(await settled(held)).toBe(false)
    output.destroy(new Error("write EPIPE"))
    expect(await settled(held.catch(() => undefined))).toBe(true)
    expect(ended).toBe(1)
    expect(errors).toContain("write EPIPE")
    await transport.close()
  })

  it("reports a reply as answered only once its bytes are written: not while held, not for a failed write, not for requests", async () => {
    const input = new PassThrough()
    const { output, release } = stalledOutput()
    const replied: Array<unknown> = []
    const transport = StdioLineTransport.make({
      input,
      output,
      maxLineBytes: 1024,
      parse: asMessage,
      onInputEnd: () => {},
      onReplied: (id) => replied.push(id)
    })
    await transport.start()
    await transport.send(reply(1, "one"))
    await transport.send({ jsonrpc: "2.0", id: "e", error: { code: -32003, message: "already" } })
    await transport.send({ jsonrpc: "2.0", id: 5, method: "roots/list" })
    await transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })
    // The stream holds them (the client has not read them yet): nothing is answered so far.
    await new Promise((r) => setTimeout(r, 20))
    expect(replied).toEqual([])
    release()
    await new Promise((r) => setTimeout(r, 20))
    expect(replied).toEqual([1, "e"])
    await transport.close()

    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error("write EPIPE")) })
    broken.on("error", () => undefined)
    const failed: Array<unknown> = []
    const other = StdioLineTransport.make({ input: new PassThrough(), output: broken, maxLineBytes: 1024, parse: asMessage, onInputEnd: () => {}, onReplied: (id) => failed.push(id) })
    await other.start()
    await other.send(reply(2, "two")).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 20))
    expect(failed).toEqual([])
    await other.close()
  })
})
