// The stand-in language servers' LSP over stdio, by hand (no dependencies: the sandbox binds only this folder):
// `send` writes one framed message, `serve` reads framed messages from stdin and hands each to `handle`.
export const send = (msg) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg }))
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`)
  process.stdout.write(body)
}

export const serve = (handle) => {
  let buf = Buffer.alloc(0)
  process.stdin.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk])
    for (;;) {
      const end = buf.indexOf("\r\n\r\n")
      if (end < 0) return
      const len = Number(/Content-Length: *(\d+)/i.exec(buf.subarray(0, end).toString())?.[1] ?? 0)
      if (buf.length < end + 4 + len) return
      const body = buf.subarray(end + 4, end + 4 + len).toString()
      buf = buf.subarray(end + 4 + len)
      handle(JSON.parse(body))
    }
  })
}
