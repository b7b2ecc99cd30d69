/**
 * One suite for every ProtectedAliases adapter: what the jail stage and grep rely on. Every adapter answers, never
 * fails and never dies (a missing or unreadable root included: names alone are judged then); paths it names are
 * absolute and inside the root; `known` is undefined before a first scan. An adapter that scans (`finds`) names a
 * hard link to a protected file by its identity and a protected symlink's target by its path, keeps its version
 * while a scan finds the same, and reads the repository's `core.hooksPath` fresh on each ask. The `nothing`
 * adapter (in-memory compositions) protects nothing beyond names: every answer is empty.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { scratchFolders } from "../support/Scratch.js"
import { Effect, Exit } from "effect"
import * as Aliases from "../../src/domain/jail/Aliases.js"
import type { ProtectedAliasesShape } from "../../src/ports/ProtectedAliases.js"

export interface Fixture {
  readonly make: Effect.Effect<ProtectedAliasesShape>
  /** Whether this adapter scans the workspace (else it protects nothing beyond names). */
  readonly finds: boolean
}

const scratch = scratchFolders()
const workspace = (): string => {
  const root = scratch("aliases-c")
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  put(".env", "TOKEN=1\n")
  put("env/development", "TOKEN=2\n")
  put("src/a.ts", "export {}\n")
  fs.linkSync(path.join(root, ".env"), path.join(root, "docs-notes.txt"))
  fs.symlinkSync("env/development", path.join(root, "sub.env"))
  fs.mkdirSync(path.join(root, "cfg"))
  fs.symlinkSync("../env/development", path.join(root, "cfg", ".env"))
  return root
}

const judged = (p: Aliases.Protected, root: string, rel: string) => {
  const real = path.join(root, rel)
  const st = fs.lstatSync(real)
  return Aliases.reason(p, root, real, st.isFile() ? st : undefined)
}

export const contract = (name: string, fixture: Fixture) =>
  describe(`ProtectedAliases contract: ${name}`, () => {
    it.effect("a missing root is answered, never a failure or a defect; known stays undefined before a scan", () =>
      Effect.gen(function* () {
        const aliases = yield* fixture.make
        const missing = path.join(os.tmpdir(), `minicode-aliases-missing-${process.pid}-${Date.now()}`)
        const root = workspace()
        assert.isUndefined(yield* aliases.known(root))
        for (const scope of ["all", "single-link"] as const) {
          const exit = yield* Effect.exit(aliases.of(missing, scope))
          assert.isTrue(Exit.isSuccess(exit), String(exit))
          if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.paths.size + exit.value.inodes.size, 0)
        }
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(aliases.treeControls(missing, undefined))))
      }))

    it.effect("what is named is absolute and inside the root; ordinary files are never protected", () =>
      Effect.gen(function* () {
        const root = workspace()
        const found = yield* (yield* fixture.make).of(root)
        for (const p of found.paths) assert.isTrue(p === root || p.startsWith(`${root}/`), p)
        assert.isUndefined(judged(found, root, "src/a.ts"))
        assert.isUndefined(judged(found, root, "src"))
      }))

    it.effect(fixture.finds ? "a hard link to a protected file and a protected symlink's target are found" : "nothing beyond names is protected", () =>
      Effect.gen(function* () {
        const root = workspace()
        const aliases = yield* fixture.make
        const found = yield* aliases.of(root, "all")
        if (fixture.finds) {
          assert.isDefined(judged(found, root, "docs-notes.txt"))
          assert.isDefined(judged(found, root, "env/development"))
        } else {
          assert.deepStrictEqual([found.paths.size, found.inodes.size], [0, 0])
          assert.isUndefined(yield* aliases.known(root))
        }
      }))

    it.effect("known follows of: the same version while scans find the same, a new one when a new alias appears", () =>
      Effect.gen(function* () {
        const root = workspace()
        const aliases = yield* fixture.make
        yield* aliases.of(root)
        const first = yield* aliases.known(root)
        if (!fixture.finds) return assert.isUndefined(first)
        assert.isDefined(first)
        yield* aliases.of(root)
        const second = yield* aliases.known(root)
        assert.strictEqual(second?.version, first?.version)
        fs.linkSync(path.join(root, ".env"), path.join(root, "src", "copy.txt"))
        const after = yield* aliases.of(root)
        assert.isDefined(judged(after, root, "src/copy.txt"))
        const third = yield* aliases.known(root)
        assert.notStrictEqual(third?.version, first?.version)
        assert.isDefined(judged(third!.aliases, root, "src/copy.txt"))
      }))

    it.effect("treeControls reads core.hooksPath fresh on each ask", () =>
      Effect.gen(function* () {
        const root = workspace()
        const aliases = yield* fixture.make
        fs.mkdirSync(path.join(root, ".git"))
        fs.writeFileSync(path.join(root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n")
        fs.writeFileSync(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
        const before = yield* aliases.treeControls(root, undefined)
        assert.deepStrictEqual(before.hooks, [])
        fs.appendFileSync(path.join(root, ".git", "config"), "[core]\n\thooksPath = .githooks\n")
        const after = yield* aliases.treeControls(root, undefined)
        assert.deepStrictEqual(after.hooks, fixture.finds ? [path.join(root, ".githooks")] : [])
      }))
  })
