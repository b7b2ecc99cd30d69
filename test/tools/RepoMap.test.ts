/**
 * repo_map through the chain on a small multi-file workspace (TypeScript, Python, Rust), and its pieces; the
 * session's wiring: tree-sitter outlines by default, the regex fallback when MINICODE_REPOMAP=regex.
 */
import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as CacheFile from "../../src/domain/repomap/CacheFile.js"
import * as Imports from "../../src/domain/repomap/Imports.js"
import { type Extension, Extensions } from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as NodeAdapters from "../../src/app/NodeLayers.js"
import * as RepoMap from "../../src/tools/RepoMapTool.js"
import * as RepoMapCache from "../../src/tools/RepoMapCache.js"
import * as Runner from "../../src/kernel/Runner.js"
import { tempDir, write } from "../support/Workspace.js"
import { nodeAdapters } from "../support/Adapters.js"

const fixture = () => {
  const root = tempDir("minicode-repomap-")
  write(root, ".gitignore", "dist/\n")
  write(root, "src/util/strings.ts", "/**\n * export function commented() {}\n */\nexport function slug(s: string): string {\n  return s.toLowerCase()\n}\nconst hidden = 1\n")
  write(root, "src/model.ts", 'import { slug } from "./util/strings.js"\nexport interface User {\n  name: string\n}\nexport class Users {\n  find(name: string) {}\n}\nexport const key = (u: User) => slug(u.name)\n')
  write(root, "src/api.ts", 'import { Users, type User } from "./model.js"\nimport { slug } from "./util/strings.js"\nexport async function handler(u: User): Promise<string> {\n  return slug(u.name)\n}\n')
  write(root, "src/index.ts", 'export * from "./api.js"\nimport "./model"\n')
  write(root, "dist/bundle.js", "export function ignored() {}\n")
  write(root, "py/app/__init__.py", "")
  write(root, "py/app/models.py", "class Point:\n    def __init__(self, x):\n        self.x = x\n\n    def _private(self):\n        pass\n\ndef distance(a, b):\n    return 0\n")
  write(root, "py/app/main.py", "from .models import Point, distance\nfrom . import models\n\ndef run():\n    pass\n")
  write(root, "crate/lib.rs", "pub mod geo;\npub fn entry() {}\n")
  write(root, "crate/geo.rs", "pub struct Shape {}\nfn private() {}\n")
  return root
}

type ExtensionEffect = ReturnType<typeof NodeAdapters.repoMapExtension>

/** Sets an environment variable for the rest of the scope, restoring it after. */
const env = (name: string, value: string | undefined) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = process.env[name]
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
      return before
    }),
    (before) =>
      Effect.sync(() => {
        if (before === undefined) delete process.env[name]
        else process.env[name] = before
      })
  )

/** A cache folder of its own for each test, and where a workspace's cache file lands in it. */
const cacheDir = () => tempDir("minicode-cache-")
const cacheFileOf = (dir: string, root: string) => RepoMapCache.cacheFile(dir, fs.realpathSync(root))
const regexMap = (dir: string) => RepoMap.make({ mode: "regex", cacheDir: dir })

const chain = (root: string, repoMap: ExtensionEffect = RepoMap.make({ mode: "regex" })) =>
  Kernel.layer(
    { workspace: root },
    nodeAdapters({ extensions: Kernel.withoutDiagnostics(Layer.effect(Extensions, Effect.map(repoMap, (e): ReadonlyArray<Extension> => [e]))) })
  )

describe("repo_map", () => {
  it.effect("ranks files by importers, outlines declarations with lines, honours .gitignore, caches by content hash", () =>
    Effect.gen(function* () {
      const root = fixture()
      const dir = cacheDir()
      const first = yield* Runner.invoke({ tool: "repo_map", args: {} }).pipe(Effect.provide(chain(root, regexMap(dir))))
      const lines = first.text.split("\n")
      assert.match(lines[0] ?? "", /^repo map of \.: 7 files, 12 symbols/)
      assert.strictEqual(lines[1], "src/util/strings.ts (imported by 2)")
      assert.strictEqual(lines[2], "  4: export function slug(s: string): string")
      assert.include(first.text, "src/model.ts (imported by 2)\n  2: export interface User\n  5: export class Users\n  8: export const key")
      assert.include(first.text, "py/app/models.py (imported by 1)\n  1: class Point\n  2: def __init__(self, x)\n  8: def distance(a, b)")
      assert.include(first.text, "crate/geo.rs (imported by 1)\n  1: pub struct Shape")
      assert.notInclude(first.text, "commented")
      assert.notInclude(first.text, "hidden")
      assert.notInclude(first.text, "_private")
      assert.notInclude(first.text, "dist/")
      const cache = CacheFile.decode(fs.readFileSync(cacheFileOf(dir, root)))
      assert.deepStrictEqual(Object.keys(cache?.files ?? {}).sort(), ["crate/geo.rs", "crate/lib.rs", "py/app/__init__.py", "py/app/main.py", "py/app/models.py", "src/api.ts", "src/index.ts", "src/model.ts", "src/util/strings.ts"])
      // A cached outline is used as long as the content hash matches: plant a marker in the cache to prove it.
      const api = cache?.files["src/api.ts"]
      if (cache === undefined || api === undefined) return assert.fail("no cache entry for src/api.ts")
      const planted = { ...api, outline: { symbols: [{ line: 1, text: "FROM CACHE" }], imports: [] } }
      fs.writeFileSync(cacheFileOf(dir, root), CacheFile.encode({ ...cache, files: { ...cache.files, "src/api.ts": planted } }))
      const second = yield* Runner.invoke({ tool: "repo_map", args: { path: "src" } }).pipe(Effect.provide(chain(root, regexMap(dir))))
      assert.include(second.text, "FROM CACHE")
      write(root, "src/api.ts", "export function changed() {}\n")
      const third = yield* Runner.invoke({ tool: "repo_map", args: { path: "src" } }).pipe(Effect.provide(chain(root, regexMap(dir))))
      assert.notInclude(third.text, "FROM CACHE")
      assert.include(third.text, "1: export function changed()")
    })
  )

  it.effect("stays within max_chars and says what it left out", () =>
    Effect.gen(function* () {
      const root = fixture()
      const out = yield* Runner.invoke({ tool: "repo_map", args: { max_chars: 200 } }).pipe(Effect.provide(chain(root)))
      assert.isAtMost(out.text.split("\n").slice(0, -1).join("\n").length, 200)
      assert.isTrue(out.truncated)
      assert.match(out.text, /\[truncated: \d+ more files; raise max_chars or map a subdirectory\]$/)
    })
  )

  it.scoped("uses the tree-sitter outliner by default and the regex fallback when MINICODE_REPOMAP=regex", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-repomap-")
      write(root, "src/strings.ts", "export function slug(s: string): string {\n  return s\n}\n")
      write(root, "src/users.ts", 'import { slug } from "./strings.js"\nexport class Users {\n  find(name: string) {}\n}\nconst help = `\nexport function fake() {}\n`\n')
      write(root, "py/app.py", '"""\nclass NotAClass:\n"""\ndef run():\n    pass\n')
      write(root, "crate/lib.rs", "pub fn entry() {}\n")
      write(root, "kt/App.kt", "fun start() {}\n")
      const dir = cacheDir()
      yield* env("XDG_CACHE_HOME", dir)
      const parsers = () => {
        const cache = CacheFile.decode(fs.readFileSync(cacheFileOf(`${dir}/minicode`, root)))
        return Object.fromEntries(Object.entries(cache?.files ?? {}).map(([f, e]) => [f, e.parser]))
      }
      const mapWith = (repoMap: ExtensionEffect) => Runner.invoke({ tool: "repo_map", args: {} }).pipe(Effect.provide(chain(root, repoMap)))

      yield* env("MINICODE_REPOMAP", undefined)
      const tree = yield* mapWith(NodeAdapters.repoMapExtension())
      assert.include(tree.text, "src/strings.ts (imported by 1)\n  1: export function slug(s: string): string")
      assert.include(tree.text, "src/users.ts\n  2: export class Users\n  3: find(name: string)")
      assert.include(tree.text, "py/app.py\n  4: def run()")
      assert.include(tree.text, "crate/lib.rs\n  1: pub fn entry()")
      assert.notInclude(tree.text, "fake")
      assert.notInclude(tree.text, "NotAClass")
      assert.include(tree.text, "kt/App.kt\n  1: fun start() {}")
      // Kotlin has no grammar here: the outliner passes it to the fallback.
      assert.deepStrictEqual(parsers(), { "src/strings.ts": "tree-sitter", "src/users.ts": "tree-sitter", "py/app.py": "tree-sitter", "crate/lib.rs": "tree-sitter", "kt/App.kt": "regex" })

      // Forced: the cached tree-sitter outlines are not reused, every file is outlined by the regex.
      yield* env("MINICODE_REPOMAP", "regex")
      const forced = yield* mapWith(NodeAdapters.repoMapExtension())
      assert.include(forced.text, "export function fake()")
      assert.include(forced.text, "class NotAClass")
      assert.notInclude(forced.text, "find(name: string)")
      assert.deepStrictEqual(parsers(), { "src/strings.ts": "regex", "src/users.ts": "regex", "py/app.py": "regex", "crate/lib.rs": "regex", "kt/App.kt": "regex" })

      // The option wins over the environment, both ways.
      assert.notInclude((yield* mapWith(NodeAdapters.repoMapExtension("auto"))).text, "fake")
      yield* env("MINICODE_REPOMAP", undefined)
      assert.include((yield* mapWith(NodeAdapters.repoMapExtension("regex"))).text, "fake")
    })
  )

  it("resolves imports per language", () => {
    const files = new Set(["src/a.ts", "src/b/index.ts", "pkg/m.py", "pkg/sub/__init__.py", "r/geo.rs", "r/geo/shapes.rs"])
    assert.strictEqual(Imports.resolveImport("src/x.ts", "./a.js", files), "src/a.ts")
    assert.strictEqual(Imports.resolveImport("src/x.ts", "./b", files), "src/b/index.ts")
    assert.strictEqual(Imports.resolveImport("src/x.ts", "react", files), undefined)
    assert.strictEqual(Imports.resolveImport("pkg/n.py", ".m", files), "pkg/m.py")
    assert.strictEqual(Imports.resolveImport("pkg/n.py", "pkg.sub", files), "pkg/sub/__init__.py")
    assert.strictEqual(Imports.resolveImport("r/geo.rs", "shapes", files), "r/geo/shapes.rs")
  })
})

