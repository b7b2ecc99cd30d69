/**
 * The store check's state (`secret-objects.json` in the state folder, StateHome) when a call learns only new protected content (a `.env`
 * changed, the journal written): the id is appended beside the state file instead of the whole file being written
 * again, another process (a one-shot CLI call) still remembers it, and the next full write folds the additions in.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterEach } from "vitest"
import * as StoreSecrets from "../../../src/adapters/shell/StoreSecrets.js"
import { stateOf } from "../../support/StateHome.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const repo = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-storesecrets-")))
  dirs.push(root)
  const git = (...args: ReadonlyArray<string>) => execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: root, encoding: "utf8" })
  git("init", "-q", "-b", "main")
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  git("add", "a.txt")
  git("commit", "-q", "-m", "a")
  return { root, git }
}

const blobOf = (root: string, text: string) => execFileSync("git", ["hash-object", "--stdin"], { cwd: root, input: text, encoding: "utf8" }).trim()

/** `remembered` in a fresh process: what a one-shot CLI call would know. */
const rememberedElsewhere = (root: string): ReadonlyArray<string> => {
  const script = path.join(root, "..", `${path.basename(root)}-remembered.mts`)
  dirs.push(script)
  const module = path.resolve(import.meta.dirname, "../../../src/adapters/shell/StoreSecrets.ts")
  fs.writeFileSync(script, `import * as S from ${JSON.stringify(module)}\nprocess.stdout.write(JSON.stringify([...S.remembered(${JSON.stringify(root)})]))\n`)
  const r = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8" })
  assert.strictEqual(r.status, 0, r.stderr)
  return JSON.parse(r.stdout) as ReadonlyArray<string>
}

describe("StoreSecrets state", () => {
  it.live("appends protected content seen after the state was written, remembered by another process, folded in on the next write", () =>
    Effect.sync(() => {
      const { root, git } = repo()
      const objects = path.join(root, ".git", "objects")
      const gitDir = path.join(root, ".git")
      const first = blobOf(root, "TOKEN=one\n")
      StoreSecrets.check(root, gitDir, [objects], [first])
      const state = path.join(stateOf(root), "secret-objects.json")
      const added = path.join(stateOf(root), "secret-objects.add")
      const written = fs.statSync(state)
      assert.isFalse(fs.existsSync(added))
      // Only new protected content: appended, the state file left as it was.
      const second = blobOf(root, "TOKEN=two\n")
      StoreSecrets.check(root, gitDir, [objects], [second])
      assert.strictEqual(fs.statSync(state).mtimeMs, written.mtimeMs)
      assert.strictEqual(fs.statSync(state).ino, written.ino)
      assert.strictEqual(fs.readFileSync(added, "utf8"), `${second}\n`)
      assert.strictEqual(fs.statSync(added).mode & 0o777, 0o600)
      assert.includeMembers([...StoreSecrets.remembered(root)], [first, second])
      assert.includeMembers([...rememberedElsewhere(root)], [first, second])
      // Something else new in the store (a loose blob): the whole state written, the additions folded into it.
      fs.writeFileSync(path.join(root, "b.txt"), "b\n")
      git("add", "b.txt")
      StoreSecrets.check(root, gitDir, [objects], [])
      assert.isFalse(fs.existsSync(added))
      assert.include(fs.readFileSync(state, "utf8"), second)
      assert.includeMembers([...rememberedElsewhere(root)], [first, second])
      assert.deepStrictEqual(fs.readdirSync(stateOf(root)).filter((n) => n.endsWith(".taken") || n.endsWith(".tmp")), [])
    })
  )
})
