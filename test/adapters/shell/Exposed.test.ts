import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as Aliases from "../../../src/domain/jail/Aliases.js"
import * as Exposed from "../../../src/adapters/shell/Exposed.js"

const made: Array<string> = []
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const workspace = () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-exposed-")))
  made.push(ws)
  return ws
}
const write = (ws: string, rel: string, time?: Date) => {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true })
  fs.writeFileSync(path.join(ws, rel), "x\n")
  if (time !== undefined) fs.utimesSync(path.join(ws, rel), time, time)
}

describe("Exposed", () => {
  it("lists the files changed since the call started, not secrets by name, git folders or minicode's state; they become protected", () => {
    const ws = workspace()
    write(ws, "a.txt")
    const since = Date.now() + 1000
    write(ws, "copied.txt")
    write(ws, "deep/a/enc.txt")
    write(ws, ".env")
    write(ws, ".git/objects/ab/cd")
    write(ws, ".minicode/state.db")
    const added = Exposed.record(ws, since - 1000 - 5_000)
    expect([...added].map((p) => path.relative(ws, p)).sort()).toEqual(["a.txt", "copied.txt", "deep/a/enc.txt"])
    expect(Exposed.record(ws, since - 6_000)).toEqual([])
    const p = Exposed.protect(ws, Aliases.none)
    expect(Aliases.reason(p, ws, path.join(ws, "deep/a/enc.txt"))).toBeDefined()
    expect(Aliases.reason(p, ws, path.join(ws, "other.txt"))).toBeUndefined()
  })

  it("a folder with many changed files is listed whole; past 500 entries, the top-level entries holding them", () => {
    const ws = workspace()
    for (let i = 0; i < 30; i++) write(ws, `node_modules/pkg/f${i}.js`)
    write(ws, "src/a.ts")
    expect([...Exposed.record(ws, Date.now() - 60_000)].map((p) => path.relative(ws, p)).sort()).toEqual(["node_modules/pkg", "src/a.ts"])
    const big = workspace()
    for (let i = 0; i < 520; i++) write(big, `many/d${i}/f.js`)
    write(big, "top.txt")
    expect([...Exposed.record(big, Date.now() - 60_000)].map((p) => path.relative(big, p)).sort()).toEqual(["many", "top.txt"])
  })
})
