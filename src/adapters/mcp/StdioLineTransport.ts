/**
 * An MCP `Transport` over a byte stream pair (stdin/stdout): newline-delimited JSON-RPC with a per-line byte cap.
 * A line over the cap is never held whole: its bytes are dropped as they arrive, scanned only for the request id,
 * and answered with an error carrying that id. Malformed JSON gets -32700; JSON that is not JSON-RPC gets -32600.
 * The end of input is reported separately from closing, so the server can drain in-flight calls first.
 * Only SDK types are imported here: the SDK itself is loaded by whoever passes `parse`.
 */
import type { Readable, Writable } from "node:stream"
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Framing from "../../domain/mcp/JsonRpcFraming.js"

export interface LineTransportOptions {
  readonly input: Readable
  readonly output: Writable
  readonly maxLineBytes: number
  /** The protocol's validator (the SDK's JSONRPCMessageSchema): the typed message, or undefined. */
  readonly parse: (value: unknown) => JSONRPCMessage | undefined
  /** Output queued past this many bytes is congested: replies wait for it to drain and input is not read meanwhile. */
  readonly congestedBytes?: number
  /** Called once when the input ends (EOF, error or destroy); `close()` is what ends the connection. */
  readonly onInputEnd: () => void
  /** Called with a response's id once the response has been written to the output (not for a write that failed). */
  readonly onReplied?: (id: Framing.WireId) => void
}

export interface LineTransport extends Transport {
  /** Lines refused so far for being too large or malformed (for diagnostics and tests). */
  readonly refused: () => number
}

export const defaultCongestedBytes = 1024 * 1024

/** Strings this long are escaped on their own (`Framing.stringify`), not through the replacer's generic path. */
export const longChars = 4096

const rejectOnError = (reject: (error: Error) => void, written?: () => void) => (error: Error | null | undefined) => {
  if (error) reject(error)
  else written?.()
}

export const make = (options: LineTransportOptions): LineTransport => {
  const { input, output, maxLineBytes } = options
  const congestedBytes = options.congestedBytes ?? defaultCongestedBytes
  let parts: Array<Uint8Array> = []
  let size = 0
  let discarding = false
  let discarded = 0
  let sniffState = Framing.sniffStart
  let refused = 0
  let started = false
  let closed = false
  let inputEnded = false

  // Back-pressure. A reply is queued on the stream at once and the call it answers is over: waiting for 'drain' per
  // reply (which fires only once the whole queue has gone out) would, under steady load, keep every call answered
  // since the last lull alive (hundreds of them, each with its result) and the collector copying them. Only when
  // the queue is congested (the client is not reading) does a reply wait, and input stops being read until the
  // queue drains, so requests wait in the client's pipe rather than in memory here.
  let draining: Promise<void> | undefined
  let release: (() => void) | undefined
  const drained = () =>
    (draining ??= new Promise<void>((resolve) => {
      release = () => {
        output.off("drain", onDrain)
        draining = undefined
        release = undefined
        if (!inputEnded && !closed) input.resume()
        resolve()
      }
      output.once("drain", onDrain)
    }))
  const onDrain = () => release?.()

  const write = (payload: string, written?: () => void): Promise<void> =>
    new Promise((resolve, reject) => {
      if (closed || output.destroyed || !output.writable) return resolve()
      // The callback lives until the bytes reach the pipe: made apart from `payload`, it does not keep the text alive.
      output.write(payload, rejectOnError(reject, written))
      if (output.writableLength <= congestedBytes) return resolve()
      input.pause()
      void drained().then(resolve)
    })

  const reply = (r: Framing.ErrorReply) => {
    refused++
    write(`${JSON.stringify(r)}\n`).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))))
  }

  // The session, as far as framing needs it: whether initialize came (before it, only ping is answered), its id
  // (its reply names the protocol version), and whether that version takes batches (2025-03-26).
  let initialized = false
  let initId: Framing.WireId | undefined
  let batching = false
  /** Requests of a batch whose replies are not all made yet: the batch is written whole once they are. */
  interface OpenBatch {
    pending: number
    readonly replies: Array<unknown>
  }
  const inBatch = new Map<string, OpenBatch>()
  const batchIds = new WeakMap<OpenBatch, ReadonlyArray<Framing.WireId>>()
  const keyOf = (id: Framing.WireId) => JSON.stringify(id)
  const requestOf = (message: JSONRPCMessage) =>
    "method" in message && "id" in message && (typeof message.id === "string" || typeof message.id === "number")
      ? { id: message.id, method: message.method }
      : undefined

  /** A message for the server, or the error a request before initialize gets. */
  const admit = (message: JSONRPCMessage): Framing.ErrorReply | undefined => {
    const request = requestOf(message)
    if (request === undefined) return undefined
    if (request.method === "initialize") {
      initialized = true
      initId = request.id
      return undefined
    }
    return initialized ? undefined : Framing.beforeInitialize(request.id, request.method)
  }

  const flushBatch = (batch: OpenBatch, ids: ReadonlyArray<Framing.WireId>) => {
    if (batch.pending > 0 || batch.replies.length === 0) return Promise.resolve()
    const replied = options.onReplied
    return write(`${JSON.stringify(batch.replies)}\n`, replied === undefined ? undefined : () => ids.forEach((id) => replied(id)))
  }

  const batchLine = (items: ReadonlyArray<Framing.Classified<JSONRPCMessage>>) => {
    const batch: OpenBatch = { pending: 0, replies: [] }
    const ids: Array<Framing.WireId> = []
    const deliver: Array<JSONRPCMessage> = []
    for (const item of items) {
      if (item._tag === "Reply") batch.replies.push(item.reply)
      if (item._tag !== "Message") continue
      const refusal = admit(item.message)
      if (refusal !== undefined) {
        batch.replies.push(refusal)
        continue
      }
      const request = requestOf(item.message)
      if (request !== undefined && !inBatch.has(keyOf(request.id))) {
        batch.pending++
        ids.push(request.id)
        inBatch.set(keyOf(request.id), batch)
      }
      deliver.push(item.message)
    }
    batchIds.set(batch, ids)
    for (const message of deliver) transport.onmessage?.(message)
    if (batch.pending === 0 && batch.replies.length > 0) {
      refused += batch.replies.length
      void flushBatch(batch, ids).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))))
    }
  }
  const line = (bytes: Uint8Array) => {
    const classified = Framing.classify(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"), options.parse, batching)
    switch (classified._tag) {
      case "Message": {
        const refusal = admit(classified.message)
        if (refusal !== undefined) reply(refusal)
        else transport.onmessage?.(classified.message)
        return
      }
      case "Batch":
        batchLine(classified.items)
        return
      case "Reply":
        reply(classified.reply)
        return
      case "Ignore":
        return
    }
  }

  const oversize = () => {
    const id = Framing.sniffedId(sniffState)
    reply(
      Framing.errorReply(
        id,
        Framing.ErrorCodes.TooLarge,
        `Request too large: the message is ${discarded} bytes, over the ${maxLineBytes}-byte limit; it was not read`
      )
    )
  }

  const onData = (chunk: Buffer | string) => {
    const data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    let start = 0
    while (start <= data.length) {
      const nl = data.indexOf(0x0a, start)
      const end = nl < 0 ? data.length : nl
      const segment = data.subarray(start, end)
      if (discarding) {
        sniffState = Framing.sniff(sniffState, segment)
        discarded += segment.byteLength
      } else if (size + segment.byteLength > maxLineBytes) {
        discarding = true
        sniffState = Framing.sniffStart
        for (const part of parts) sniffState = Framing.sniff(sniffState, part)
        sniffState = Framing.sniff(sniffState, segment)
        discarded = size + segment.byteLength
        parts = []
        size = 0
      } else if (segment.byteLength > 0) {
        parts.push(segment)
        size += segment.byteLength
      }
      if (nl < 0) return
      if (discarding) oversize()
      else line(parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, size))
      parts = []
      size = 0
      discarding = false
      discarded = 0
      sniffState = Framing.sniffStart
      start = nl + 1
    }
  }

  const onEnd = () => {
    if (inputEnded) return
    inputEnded = true
    // A last line without a newline is still a message.
    if (!discarding && size > 0) line(Buffer.concat(parts, size))
    parts = []
    size = 0
    options.onInputEnd()
  }

  const onError = (error: Error) => {
    transport.onerror?.(error)
    onEnd()
  }

  // The client is gone (EPIPE, or stdout closed): no reply can reach it. Replies waiting for the queue to drain are
  // let go, and the connection ends as when input ends, so the calls in flight are drained and the server exits.
  const onOutputGone = (error?: Error) => {
    if (error !== undefined) transport.onerror?.(error)
    onEnd()
    release?.()
  }
  const onOutputError = (error: Error) => onOutputGone(error)
  const onOutputClose = () => onOutputGone()

  /** Every listener the transport keeps on the two streams: added by `start`, removed by `close`. */
  const listen = (method: "on" | "off") => {
    input[method]("data", onData)
    input[method]("end", onEnd)
    input[method]("close", onEnd)
    input[method]("error", onError)
    output[method]("error", onOutputError)
    output[method]("close", onOutputClose)
  }

  const transport: LineTransport = {
    start: async () => {
      if (started) throw new Error("the stdio transport is already started")
      started = true
      listen("on")
      input.resume()
    },
    send: async (message: JSONRPCMessage, _options?: TransportSendOptions) => {
      const tidy = "error" in message ? Framing.tidyError(message.error.code, message.error.message) : undefined
      const sent = tidy === undefined || !("error" in message) ? message : { ...message, error: { ...message.error, ...tidy } }
      const replied = options.onReplied
      const id = "id" in message && !("method" in message) ? message.id : undefined
      if (id !== undefined && id === initId && "result" in message) {
        const version = message.result["protocolVersion"]
        batching = typeof version === "string" && Framing.batchVersions.has(version)
      }
      const batch = id === undefined ? undefined : inBatch.get(keyOf(id))
      if (batch !== undefined && id !== undefined) {
        inBatch.delete(keyOf(id))
        batch.replies.push(sent)
        batch.pending--
        return flushBatch(batch, batchIds.get(batch) ?? [])
      }
      const written = replied === undefined || (typeof id !== "string" && typeof id !== "number") ? undefined : () => replied(id)
      await write(`${Framing.stringify(sent, JSON.stringify, longChars)}\n`, written)
    },
    close: async () => {
      if (closed) return
      listen("off")
      input.destroy()
      closed = true
      transport.onclose?.()
    },
    refused: () => refused
  }
  return transport
}
