/**
 * What the git tools' object judge costs a one-shot call (`SecretObjects.protectedIds`, the scan before it): run
 * `node --import tsx bench/protected-ids.ts <copy of a bench tree>`. The first round reads the store (packs'
 * trees); later rounds read only the state file and what changed.
 */
import { Effect } from "effect"
import * as SecretObjects from "../src/adapters/shell/SecretObjects.js"
import * as WatchedScan from "../src/adapters/shell/WatchedScan.js"

const root = process.argv[2]
if (root === undefined) throw new Error("usage: bench/protected-ids.ts <workspace>")
const scanner = WatchedScan.oneShot()
for (let i = 0; i < 5; i++) {
  const t0 = performance.now()
  const hits = await Effect.runPromise(scanner.scan(root))
  const t1 = performance.now()
  const ids = await Effect.runPromise(SecretObjects.protectedIds(root, hits))
  const t2 = performance.now()
  console.log(`round ${i}: scan ${(t1 - t0).toFixed(0)} ms, protectedIds ${(t2 - t1).toFixed(0)} ms (${ids.size} ids)`)
}
