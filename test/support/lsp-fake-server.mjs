// A scripted language server for the client's failure paths. Arguments: MODES MARKER, where MODES is a
// comma-separated list of:
//   crash-on-hover     exits (code 3) on its first hover, answers after a restart (the marker file records the crash)
//   silent             never answers initialize (alias: hang-initialize)
//   slow-hover         answers hover after 5 s
//   hang-hover         never answers hover (nor any other request but initialize and shutdown)
//   hang-shutdown      never answers shutdown and ignores `exit`
//   hang-diagnostics   never publishes diagnostics and never answers the client's barrier request
//   exit-at-start      writes two stderr lines and exits with code 7 before reading anything
//   crash-mid-session  exits (code 5) on every hover and every didChangeWatchedFiles
//   ignore-sigterm     ignores SIGTERM (only SIGKILL stops it)
//   child              spawns a helper process (like tsserver) that lives as long as it is not killed
//   huge               a hover reply over any reasonable cap
//   loading            version-less reports: on each didOpen/didChange a work-done progress begins, an empty report
//                      is published at once, the real one 800 ms later, then the progress ends (tsserver's pattern)
//   still-loading      like loading, but the progress never ends and the real report never comes
//   pull               offers pull diagnostics: the first textDocument/diagnostic is cancelled for a retrigger, the
//                      next answers with the warning and an error in a related document (dependent.fake)
//   workspace-pull     pull diagnostics without related documents, and workspace/diagnostic: an error in other.fake
// MARKER is a file prefix: `MARKER.pids` gets "server-pid child-pid" once started, `MARKER.answers` the client's
// answers to the questions real servers ask. Otherwise it publishes one diagnostic per didOpen/didChange.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js"

const [modeArg = "crash-on-hover", marker = ""] = process.argv.slice(2)
const modes = new Set(modeArg.split(","))
const has = (m) => modes.has(m)

if (has("exit-at-start")) {
  process.stderr.write("fake-lsp: cannot load the project\nfake-lsp: giving up\n")
  process.exit(7)
}
if (has("ignore-sigterm")) process.on("SIGTERM", () => undefined)
let childPid = ""
if (has("child")) {
  const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => undefined); setInterval(() => undefined, 1000)"], { stdio: "ignore" })
  childPid = String(child.pid)
}
if (marker !== "") fs.writeFileSync(`${marker}.pids`, `${process.pid} ${childPid}`.trim())

const never = () => new Promise(() => undefined)
const conn = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout))
conn.onRequest("initialize", async () => {
  if (has("silent") || has("hang-initialize")) return never()
  const pull = has("pull")
    ? { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } }
    : has("workspace-pull")
      ? { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: true } }
      : {}
  return { capabilities: { textDocumentSync: 1, hoverProvider: true, definitionProvider: true, ...pull } }
})
let answered
const asked = new Promise((resolve) => (answered = resolve))
conn.onNotification("initialized", async () => {
  // The questions that stall real servers when a client ignores them.
  await conn.sendRequest("window/workDoneProgress/create", { token: "t" })
  const config = await conn.sendRequest("workspace/configuration", { items: [{ section: "fake" }, { section: "other" }] })
  await conn.sendRequest("client/registerCapability", { registrations: [] })
  const folders = await conn.sendRequest("workspace/workspaceFolders")
  if (marker !== "") fs.writeFileSync(`${marker}.answers`, JSON.stringify({ config, folders }))
  answered()
})
conn.onRequest("textDocument/hover", async () => {
  await asked
  if (has("hang-hover")) return never()
  if (has("crash-mid-session")) process.exit(5)
  if (has("crash-on-hover") && !fs.existsSync(marker)) {
    fs.writeFileSync(marker, String(process.pid))
    process.exit(3)
  }
  if (has("slow-hover")) await new Promise((r) => setTimeout(r, 5000))
  if (has("huge")) return { contents: "x".repeat(3 * 1024 * 1024) }
  return { contents: { kind: "plaintext", value: `hover from ${process.pid}` } }
})
const warning = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 2, message: "fake warning" }
let progressId = 0
const loading = async (uri) => {
  const token = `load-${++progressId}`
  await conn.sendRequest("window/workDoneProgress/create", { token })
  await conn.sendProgress({ method: "$/progress" }, token, { kind: "begin", title: "Loading the project" })
  conn.sendNotification("textDocument/publishDiagnostics", { uri, diagnostics: [] })
  if (has("still-loading")) return
  await new Promise((r) => setTimeout(r, 800))
  conn.sendNotification("textDocument/publishDiagnostics", { uri, diagnostics: [warning] })
  await conn.sendProgress({ method: "$/progress" }, token, { kind: "end" })
}
let pulls = 0
let lastUri
conn.onRequest("workspace/diagnostic", () => {
  const other = (lastUri ?? "file:///x").replace(/[^/]*$/, "other.fake")
  const error = { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 3 } }, severity: 1, message: "fake error in other.fake" }
  return { items: [{ kind: "full", uri: lastUri, version: null, items: [warning] }, { kind: "full", uri: other, version: null, items: [error] }] }
})
conn.onRequest("textDocument/diagnostic", (p) => {
  lastUri = p.textDocument.uri
  if (has("workspace-pull")) return { kind: "full", items: [warning] }
  if (++pulls === 1) return new ResponseError(-32802, "not yet", { retriggerRequest: true })
  const dependent = p.textDocument.uri.replace(/[^/]*$/, "dependent.fake")
  const error = { range: { start: { line: 2, character: 4 }, end: { line: 2, character: 5 } }, severity: 1, message: "fake error in a dependent" }
  return { kind: "full", items: [warning], relatedDocuments: { [dependent]: { kind: "full", items: [error] } } }
})
const publish = (uri, version) => {
  if (has("hang-diagnostics") || has("pull") || has("workspace-pull")) return
  if (has("loading") || has("still-loading")) return void loading(uri)
  conn.sendNotification("textDocument/publishDiagnostics", {
    uri,
    version,
    diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 2, message: "fake warning" }]
  })
}
conn.onNotification("textDocument/didOpen", (p) => publish(p.textDocument.uri, p.textDocument.version))
conn.onNotification("textDocument/didChange", (p) => publish(p.textDocument.uri, p.textDocument.version))
conn.onNotification("workspace/didChangeWatchedFiles", () => {
  if (has("crash-mid-session")) process.exit(5)
})
conn.onRequest("shutdown", () => (has("hang-shutdown") ? never() : null))
conn.onNotification("exit", () => {
  if (!has("hang-shutdown")) process.exit(0)
})
// Any other request (the client's barrier among them): answered at once, or never when hanging.
conn.onRequest((method) => (has("hang-hover") || has("hang-diagnostics") ? never() : null))
conn.listen()
