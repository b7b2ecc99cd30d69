/**
 * The HistoryStore contract on the one adapter, `.minicode/secret-history` in the workspace's state folder
 * (`adapters/fs/HistoryStore`). No in-memory fake: the git runners take the store as optional, and the in-memory
 * compositions walk the history each time without one.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll } from "vitest"
import * as HistoryStore from "../../../src/adapters/fs/HistoryStore.js"
import * as StateHome from "../../../src/adapters/fs/StateHome.js"
import { contract } from "../../contracts/HistoryStore.contract.js"

const made: Array<string> = []
afterAll(() => {
  for (const dir of made) {
    const state = StateHome.locate(dir)
    if (state !== undefined) fs.rmSync(state, { recursive: true, force: true })
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
let current = ""

contract("state file", {
  make: Effect.sync(() => {
    current = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-history-c-")))
    made.push(current)
    return { store: HistoryStore.make(current), reopen: () => HistoryStore.make(current) }
  }),
  spoil: () => {
    const file = StateHome.fileIn(current, "secret-history")
    if (file === undefined) throw new Error("no history file was saved")
    const text = fs.readFileSync(file, "utf8")
    fs.writeFileSync(file, text.replace(/[0-9a-f]{40}/, "f".repeat(40)))
  },
  refuseSaves: () => {
    // The state folder's place taken by a file: no folder can be made there, so nothing can be written.
    const state = StateHome.locate(current)
    if (state === undefined) throw new Error("no state folder place")
    fs.rmSync(state, { recursive: true, force: true })
    fs.mkdirSync(path.dirname(state), { recursive: true })
    fs.writeFileSync(state, "not a folder")
  }
})
