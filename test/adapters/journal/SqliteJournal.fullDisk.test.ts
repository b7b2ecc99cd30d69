/**
 * Issue 40, item 11, at the adapter: the real SQLite journal on a real full disk (a 2 MiB tmpfs this test mounts;
 * needs root). A call begun while there was room and ended when there is none (its own write failed with ENOSPC)
 * is recorded `failed`, not left `pending` for `recover` to call a crash; the reserve beside the database gives the
 * room. Before: complete failed with "database or disk is full" and the record stayed pending.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import * as SqliteJournal from "../../../src/adapters/journal/SqliteJournal.js"
import { Journal } from "../../../src/ports/Journal.js"

const isRoot = process.getuid?.() === 0

describe.skipIf(!isRoot)("SqliteJournal on a full disk (needs root: mounts a tmpfs)", () => {
  it.live("a call ended on a full disk is recorded failed, and the journal still lists", () => {
    const mount = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-full-journal-")))
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount])
    const root = path.join(mount, "ws")
    fs.mkdirSync(root)
    const fill = () => {
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${path.join(mount, "fill")}`, "bs=4k"], { stdio: "ignore" })
      } catch {
        // ENOSPC: full.
      }
      assert.strictEqual(fs.statfsSync(mount).bavail, 0)
    }
    return Effect.gen(function* () {
      const journal = yield* Journal
      const record = yield* journal.begin(
        { session: "s", turn: 1, tool: "edit_file", capability: "write", paths: ["a.txt"], canonicalArgs: "{}", remote: false },
        [{ path: "a.txt", content: new TextEncoder().encode("hello\n"), mode: 0o644 }]
      )
      fill()
      yield* journal.complete(record.id, "failed", "write a.txt: ENOSPC: no space left on device")
      const listed = yield* journal.list()
      assert.deepStrictEqual(listed.map((r) => [r.tool, r.state]), [["edit_file", "failed"]])
      const plan = yield* journal.recover
      assert.deepStrictEqual(plan.items.map((i) => i.classification), ["failed"])
    }).pipe(
      Effect.provide(SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(root) })),
      Effect.ensuring(Effect.sync(() => {
        execFileSync("umount", ["-l", mount])
        fs.rmSync(mount, { recursive: true, force: true })
      }))
    )
  })
})
