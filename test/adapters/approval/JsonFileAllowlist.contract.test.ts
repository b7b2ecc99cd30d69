import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as JsonFileAllowlist from "../../../src/adapters/approval/JsonFileAllowlist.js"
import { contract } from "../../contracts/Allowlist.contract.js"

const tmpFile = () => path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-allowc-"))), "cfg", "allowlist.json")

contract("json file", {
  make: (configured) =>
    Effect.gen(function* () {
      const file = tmpFile()
      return { store: yield* JsonFileAllowlist.make(file, configured), reopen: JsonFileAllowlist.make(file) }
    })
})

describe("JSON file allowlist beyond the contract", () => {
  it.effect("the file is mode 600 in a 700 folder and holds only the saved entries", () =>
    Effect.gen(function* () {
      const file = tmpFile()
      const store = yield* JsonFileAllowlist.make(file, [{ tool: "bash", argv: ["npm", "test"] }])
      yield* store.add({ tool: "git_commit" })
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(fs.statSync(path.dirname(file)).mode & 0o777, 0o700)
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), { entries: [{ tool: "git_commit" }] })
    }))

  it.effect("a bad file is a clear error naming it, and is never overwritten", () =>
    Effect.gen(function* () {
      for (const [text, says] of [["{ not json", "not valid JSON"], ['{"other": 1}', "must hold"], ['{"entries": [{"argv": 3}]}', ""]] as const) {
        const file = tmpFile()
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, text)
        const store = yield* JsonFileAllowlist.make(file)
        const read = yield* Effect.either(store.entries)
        assert.isTrue(Either.isLeft(read), text)
        if (Either.isLeft(read)) {
          assert.include(read.left.message, file)
          assert.include(read.left.message, says)
        }
        assert.isTrue(Either.isLeft(yield* Effect.either(store.add({ tool: "git_commit" }))))
        assert.strictEqual(fs.readFileSync(file, "utf8"), text)
      }
    }))
})
