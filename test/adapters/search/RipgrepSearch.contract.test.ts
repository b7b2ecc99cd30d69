/**
 * The TextSearch contract on ripgrep (the only engine behind the port: grep's own walk is the caller's fallback, not
 * a TextSearch adapter, and the in-memory compositions use `Unavailable.textSearch`, which fails `unavailable`).
 */
import { spawnSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as RipgrepSearch from "../../../src/adapters/search/RipgrepSearch.js"
import * as Unavailable from "../../../src/adapters/Unavailable.js"
import { TextSearch } from "../../../src/ports/TextSearch.js"
import { contract } from "../../contracts/TextSearch.contract.js"

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0

contract("ripgrep", { make: RipgrepSearch.make(), skip: hasRg ? undefined : "rg is not on PATH" })

describe("the explicit none adapter", () => {
  it.effect("fails every search with a typed unavailable error", () =>
    Effect.gen(function* () {
      const none = yield* Effect.provide(TextSearch, Unavailable.textSearch)
      const r = yield* Effect.either(none.search({ root: "/", path: "", pattern: "x", ignoreCase: false, exclude: [], lineBytes: 10 }, () => undefined))
      assert.isTrue(Either.isLeft(r) && r.left.kind === "unavailable")
    }))
})
