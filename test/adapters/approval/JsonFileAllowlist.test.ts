import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as JsonFileAllowlist from "../../../src/adapters/approval/JsonFileAllowlist.js"
import { runTool } from "../../../src/index.js"

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-allow-")))

describe("JSON file allowlist", () => {
  it.effect("persists entries atomically with mode 600 and merges configured ones", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "cfg", "allowlist.json")
      const store = yield* JsonFileAllowlist.make(file, [{ tool: "bash", argv: ["npm", "test"] }])
      assert.deepStrictEqual(yield* store.entries, [{ tool: "bash", argv: ["npm", "test"] }])
      yield* store.add({ tool: "git_commit" })
      yield* store.add({ tool: "git_commit" })
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), { entries: [{ tool: "git_commit" }] })
      assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), ["allowlist.json"])
      assert.strictEqual((yield* store.entries).length, 2)
    }))

  it.effect("entries kept between calls are the file's as it is now: an edit in place (same size, mtime set back), a replacement, a removal", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "allowlist.json")
      const write = (tool: string) => fs.writeFileSync(file, JSON.stringify({ entries: [{ tool }] }))
      write("git_commit")
      // Past the settle margin: from now on the parsed entries are kept while the file stays the same.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2_100)))
      const store = yield* JsonFileAllowlist.make(file)
      assert.deepStrictEqual(yield* store.entries, [{ tool: "git_commit" }])
      assert.deepStrictEqual(yield* store.entries, [{ tool: "git_commit" }])
      const { atime, mtime } = fs.statSync(file)
      write("sql_query_") // as long as "git_commit"
      fs.utimesSync(file, atime, mtime)
      assert.deepStrictEqual(yield* store.entries, [{ tool: "sql_query_" }])
      fs.writeFileSync(`${file}.new`, JSON.stringify({ entries: [{ tool: "bash", argv: ["ls"] }] }))
      fs.renameSync(`${file}.new`, file)
      assert.deepStrictEqual(yield* store.entries, [{ tool: "bash", argv: ["ls"] }])
      fs.rmSync(file)
      assert.deepStrictEqual(yield* store.entries, [])
    }))

  it.effect("a damaged file is an error, and adding to it never overwrites it", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "allowlist.json")
      fs.writeFileSync(file, "{ not json")
      const store = yield* JsonFileAllowlist.make(file)
      const read = yield* Effect.either(store.entries)
      assert.isTrue(Either.isLeft(read) && read.left.reason.includes("not valid JSON"))
      assert.isTrue(Either.isLeft(yield* Effect.either(store.add({ tool: "git_commit" }))))
      assert.strictEqual(fs.readFileSync(file, "utf8"), "{ not json")
    }))

  it("an 'always' answer is saved for that exact tool and later calls are allowed without asking", async () => {
    const ws = tmp()
    fs.writeFileSync(path.join(ws, "a.txt"), "a")
    const file = path.join(tmp(), "allowlist.json")
    const store = JsonFileAllowlist.layer(file)
    const first = await runTool({ workspace: ws, workMode: "BUILD", permissionMode: "ASK", tool: "write_file", args: { path: "a.txt", content: "b" }, approve: "always", sandbox: "none", adapters: { allowlist: store } })
    assert.isTrue(first.ok)
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")).entries, [{ tool: "write_file" }])
    const second = await runTool({ workspace: ws, workMode: "BUILD", permissionMode: "ASK", tool: "write_file", args: { path: "a.txt", content: "c" }, approve: "no", sandbox: "none", adapters: { allowlist: store } })
    assert.isTrue(second.ok)
    const other = await runTool({ workspace: ws, workMode: "BUILD", permissionMode: "ASK", tool: "delete_file", args: { path: "a.txt" }, approve: "no", sandbox: "none", adapters: { allowlist: store } })
    assert.isFalse(other.ok)
  })
})
