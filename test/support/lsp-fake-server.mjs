// A scripted language server for the client's failure paths: MODE is crash-on-hover (exits on its first hover,
// answers after a restart), silent (never answers initialize), slow-hover (answers hover after 5 s) or huge (a
// hover reply over any reasonable cap). It also asks the client the questions real servers ask.
import * as fs from "node:fs"
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js"

const [mode = "crash-on-hover", marker = ""] = process.argv.slice(2)
const conn = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout))
conn.onRequest("initialize", async () => {
  if (mode === "silent") return new Promise(() => undefined)
  return { capabilities: { textDocumentSync: 1, hoverProvider: true } }
})
let answered
const asked = new Promise((resolve) => (answered = resolve))
conn.onNotification("initialized", async () => {
  // The questions that stall real servers when a client ignores them.
  await conn.sendRequest("window/workDoneProgress/create", { token: "t" })
  const config = await conn.sendRequest("workspace/configuration", { items: [{ section: "fake" }, { section: "other" }] })
  await conn.sendRequest("client/registerCapability", { registrations: [] })
  const folders = await conn.sendRequest("workspace/workspaceFolders")
  fs.writeFileSync(`${marker}.answers`, JSON.stringify({ config, folders }))
  answered()
})
conn.onRequest("textDocument/hover", async () => {
  await asked
  if (mode === "crash-on-hover" && !fs.existsSync(marker)) {
    fs.writeFileSync(marker, String(process.pid))
    process.exit(3)
  }
  if (mode === "slow-hover") await new Promise((r) => setTimeout(r, 5000))
  if (mode === "huge") return { contents: "x".repeat(3 * 1024 * 1024) }
  return { contents: { kind: "plaintext", value: `hover from ${process.pid}` } }
})
conn.onRequest("shutdown", () => null)
conn.onNotification("exit", () => process.exit(0))
conn.listen()
