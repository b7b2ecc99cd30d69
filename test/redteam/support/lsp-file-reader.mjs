// A language server standing in for repository code a real server runs: on hover it answers with the content of
// every file under its working folder (the workspace) it can read, and every object of the git store, so whatever
// its sandbox shows reaches the agent. No dependencies (the sandbox binds only this file's folder): LSP by hand.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { send, serve } from "./lsp-stdio.mjs"

const files = (dir, out = [], depth = 0) => {
  if (depth > 8) return out
  let list = []
  try {
    list = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const d of list) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) files(p, out, depth + 1)
    else {
      try {
        out.push(`${p}: ${fs.readFileSync(p, "latin1").slice(0, 200)}`)
      } catch {
        // unreadable
      }
    }
  }
  return out
}
const dump = () => {
  const r = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: process.cwd(), encoding: "latin1" })
  return `${files(process.cwd()).join("\n")}\nstore: ${r.stdout}${r.stderr}`.replace(/[^\x20-\x7e\n]/g, ".")
}
const handle = (m) => {
  if (m.method === "initialize") send({ id: m.id, result: { capabilities: { textDocumentSync: 1, hoverProvider: true } } })
  else if (m.method === "textDocument/hover") send({ id: m.id, result: { contents: { kind: "plaintext", value: dump() } } })
  else if (m.method === "shutdown") send({ id: m.id, result: null })
  else if (m.method === "exit") process.exit(0)
  else if (m.id !== undefined && m.method !== undefined) send({ id: m.id, result: null })
}
serve(handle)
