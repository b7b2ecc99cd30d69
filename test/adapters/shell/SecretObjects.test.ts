/**
 * The store check as the sandbox runs it (SecretObjects.toHideEffect), on a real repository of a few thousand
 * commits packed by git: the event loop turns while it reads (other calls of a long-lived process go on), it
 * answers what the run-through check answers, and an interrupted check saves nothing, so the next call reads the
 * pack again and still masks the store that holds a secret (fail closed).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { afterEach } from "vitest"
import * as SecretObjects from "../../../src/adapters/shell/SecretObjects.js"
import * as WorkspaceScan from "../../../src/adapters/shell/WorkspaceScan.js"
import { stateOf } from "../../support/StateHome.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/**
 * A repository of `commits` commits (files in 40 folders, one changed per commit, written by git fast-import),
 * plus an unreachable tree naming `.env`, all in one pack; `.env` now holds something else.
 */
const bigRepo = (commits: number) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-secretobjects-")))
  dirs.push(root)
  const git = (args: ReadonlyArray<string>, input?: string) =>
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28, ...(input === undefined ? {} : { input }) })
  git(["init", "-q", "-b", "main"])
  const lines: Array<string> = []
  for (let c = 0; c < commits; c++) {
    const body = `line ${c}\n`
    lines.push("commit refs/heads/main", `committer A <a@b> ${1_700_000_000 + c} +0000`, "data 2", "c", "")
    lines.push(`M 100644 inline d${c % 40}/f${c % 97}.txt`, `data ${Buffer.byteLength(body)}`, body)
  }
  git(["fast-import", "--quiet"], lines.join("\n") + "\n")
  git(["checkout", "-q", "-f", "main"])
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=PACKEDSECRET\n")
  git(["add", "-f", ".env"])
  git(["write-tree"])
  git(["reset", "-q", ".env"])
  fs.writeFileSync(path.join(root, ".env"), "TOKEN=other\n")
  const all = git(["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"])
  git(["pack-objects", "-q", ".git/objects/pack/pack"], all)
  git(["prune-packed"])
  return root
}

describe("SecretObjects.toHideEffect", () => {
  it.live("lets the event loop turn while it reads a big pack, and answers what the run-through check answers", () =>
    Effect.gen(function* () {
      const root = bigRepo(3000)
      const hits = WorkspaceScan.scan(root)
      let turns = 0
      let done = false
      const tick = () => {
        if (done) return
        turns++
        setImmediate(tick)
      }
      setImmediate(tick)
      const hide = yield* SecretObjects.toHideEffect(root, hits)
      done = true
      // A check that never gave the event loop back would have let the ticker run at most once.
      assert.isAbove(turns, 2)
      assert.include(hide, path.join(root, ".git", "objects"))
      fs.rmSync(stateOf(root), { recursive: true, force: true })
      assert.deepStrictEqual(SecretObjects.toHide(root, hits), hide)
    })
  )

  it.live("an interrupted check saves nothing: the next call reads the pack again and still masks the store", () =>
    Effect.gen(function* () {
      const root = bigRepo(3000)
      const hits = WorkspaceScan.scan(root)
      const fiber = yield* Effect.fork(SecretObjects.toHideEffect(root, hits))
      // A few turns of the event loop, then the call is gone.
      for (let i = 0; i < 3; i++) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      yield* Fiber.interrupt(fiber)
      const state = path.join(stateOf(root), "secret-objects.json")
      const saved = fs.existsSync(state) ? fs.readFileSync(state, "utf8") : ""
      assert.notInclude(saved, "pack-")
      const hide = yield* SecretObjects.toHideEffect(root, hits)
      assert.include(hide, path.join(root, ".git", "objects"))
      assert.include(fs.readFileSync(state, "utf8"), "pack-")
    })
  )
})
