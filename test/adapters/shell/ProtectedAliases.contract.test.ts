/**
 * The ProtectedAliases contract on the sandbox's workspace scan (`ProtectedAliasesScan` over a fresh `WatchedScan`,
 * no watchers, no store: a one-shot process) and on `nothing`, the adapter of the in-memory compositions.
 */
import { Effect } from "effect"
import * as ProtectedAliasesScan from "../../../src/adapters/shell/ProtectedAliasesScan.js"
import * as WatchedScan from "../../../src/adapters/shell/WatchedScan.js"
import { nothing, ProtectedAliases } from "../../../src/ports/ProtectedAliases.js"
import { contract } from "../../contracts/ProtectedAliases.contract.js"

contract("workspace scan", {
  make: Effect.provide(ProtectedAliases, ProtectedAliasesScan.layer(WatchedScan.make({ watch: false, settleMs: 20 }))),
  finds: true
})

contract("nothing", { make: Effect.succeed(nothing), finds: false })
