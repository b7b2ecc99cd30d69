/**
 * One suite for every TextSearch adapter: what grep relies on when it hands an engine the walk and the reading.
 * Paths come back workspace-relative; `.gitignore` files (nested, negated) count whether or not the tree is a git
 * repository; hidden files are searched; symlinks are never followed; `.git/` and `.minicode/` are never entered;
 * "skip" turns the rest of a file's lines into one Counted event; a binary file with a match is only named; a
 * pattern the engine cannot take is a typed `unsupported` error, never a defect.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { scratchFolders } from "../support/Scratch.js"
import { Cause, Effect, Exit } from "effect"
import { type SearchEvent, type SearchSpec, TextSearchError, type TextSearchShape } from "../../src/ports/TextSearch.js"

export interface Fixture {
  readonly make: Effect.Effect<TextSearchShape>
  /** Why this adapter cannot run here (its engine is not installed), or undefined. */
  readonly skip?: string | undefined
}

const folder = scratchFolders()

const tree = (): string => {
  const root = folder("textsearch-c")
  const put = (rel: string, text: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  put("a.txt", "one needle\ntwo\nthree needle\nfour needle\n")
  put("src/b.ts", "const Needle = 1\n")
  put(".hidden/c.txt", "needle hidden\n")
  put(".gitignore", "*.log\nbuild/\n!keep.log\n")
  put("x.log", "needle in log\n")
  put("keep.log", "needle kept\n")
  put("build/out.txt", "needle built\n")
  put("sub/.gitignore", "local.txt\n")
  put("sub/local.txt", "needle local\n")
  put("sub/other.txt", "needle other\n")
  put(".git/config", "needle in git\n")
  put(".minicode/state", "needle in state\n")
  put("bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(8, 0), Buffer.from("more\n")]))
  put("many.txt", Array.from({ length: 50 }, (_, i) => `needle ${i}`).join("\n") + "\n")
  const outside = folder("textsearch-out")
  fs.writeFileSync(path.join(outside, "secret.txt"), "needle outside\n")
  fs.symlinkSync(outside, path.join(root, "linkdir"))
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"))
  return root
}

const spec = (root: string, over: Partial<SearchSpec> = {}): SearchSpec => ({
  root, path: "", pattern: "needle", ignoreCase: false, exclude: [], lineBytes: 1000, ...over
})

interface Seen { readonly matches: Array<string>; readonly events: Array<SearchEvent> }

const collect = (search: TextSearchShape, s: SearchSpec, answer: (e: SearchEvent) => "skip" | void = () => undefined) =>
  Effect.gen(function* () {
    const seen: Seen = { matches: [], events: [] }
    yield* search.search(s, (e) => {
      seen.events.push(e)
      if (e._tag === "Match") seen.matches.push(`${e.file}:${e.line}:${e.text()}`)
      return answer(e)
    })
    return seen
  })

const files = (seen: Seen) => [...new Set(seen.events.map((e) => e.file))].sort()

export const contract = (name: string, fixture: Fixture) =>
  describe.skipIf(fixture.skip !== undefined)(`TextSearch contract: ${name}${fixture.skip === undefined ? "" : ` (skipped: ${fixture.skip})`}`, () => {
    it.effect("matches come workspace-relative with line numbers and text, a file's lines in order", () =>
      Effect.gen(function* () {
        const root = tree()
        const seen = yield* collect(yield* fixture.make, spec(root, { path: "" }))
        const a = seen.matches.filter((m) => m.startsWith("a.txt:"))
        assert.deepStrictEqual(a, ["a.txt:1:one needle", "a.txt:3:three needle", "a.txt:4:four needle"])
        for (const e of seen.events) assert.isFalse(path.isAbsolute(e.file), e.file)
      }))

    it.effect("gitignore rules (nested, negated) count without a repository; hidden files are searched; .git, .minicode and symlinks are not", () =>
      Effect.gen(function* () {
        const root = tree()
        const seen = yield* collect(yield* fixture.make, spec(root))
        const found = files(seen)
        for (const f of ["a.txt", ".hidden/c.txt", "keep.log", "sub/other.txt", "many.txt", "bin.dat"]) assert.include(found, f)
        for (const f of ["x.log", "build/out.txt", "sub/local.txt", ".git/config", ".minicode/state", "link.txt", "linkdir/secret.txt"]) {
          assert.notInclude(found, f)
        }
        assert.isFalse(seen.matches.some((m) => m.includes("outside")))
      }))

    it.effect("a start below the root, ignoreCase, a name glob and exclude narrow the search", () =>
      Effect.gen(function* () {
        const root = tree()
        const search = yield* fixture.make
        assert.deepStrictEqual(files(yield* collect(search, spec(root, { path: "sub" }))), ["sub/other.txt"])
        assert.deepStrictEqual(files(yield* collect(search, spec(root, { path: "src" }))), [])
        assert.deepStrictEqual(files(yield* collect(search, spec(root, { path: "src", ignoreCase: true }))), ["src/b.ts"])
        assert.deepStrictEqual(files(yield* collect(search, spec(root, { nameGlob: "*.ts", ignoreCase: true }))), ["src/b.ts"])
        const excluded = files(yield* collect(search, spec(root, { exclude: ["many.txt", "sub/"] })))
        assert.notInclude(excluded, "many.txt")
        assert.notInclude(excluded, "sub/other.txt")
        assert.include(excluded, "a.txt")
      }))

    it.effect("\"skip\" makes the rest of that file's lines one Counted event: none lost, none shown", () =>
      Effect.gen(function* () {
        const root = tree()
        const seen = yield* collect(yield* fixture.make, spec(root, { path: "many.txt" }), (e) => (e._tag === "Match" ? "skip" : undefined))
        const shown = seen.events.filter((e) => e._tag === "Match")
        const counted = seen.events.flatMap((e) => (e._tag === "Counted" ? [e.lines] : []))
        assert.strictEqual(shown.length, 1)
        assert.strictEqual(shown.length + counted.reduce((a, b) => a + b, 0), 50)
      }))

    it.effect("a binary file holding a match is only named", () =>
      Effect.gen(function* () {
        const root = tree()
        const seen = yield* collect(yield* fixture.make, spec(root, { path: "bin.dat" }))
        assert.deepStrictEqual(seen.events.map((e) => `${e._tag}:${e.file}`), ["Binary:bin.dat"])
      }))

    it.effect("long lines come cut, and say so", () =>
      Effect.gen(function* () {
        const root = tree()
        fs.writeFileSync(path.join(root, "long.txt"), `needle ${"x".repeat(5000)}\nneedle short\n`)
        const seen = yield* collect(yield* fixture.make, spec(root, { path: "long.txt", lineBytes: 100 }))
        const matches = seen.events.flatMap((e) => (e._tag === "Match" ? [{ cut: e.cut, length: e.text().length }] : []))
        assert.strictEqual(matches.length, 2)
        assert.isTrue(matches[0]!.cut)
        assert.isBelow(matches[0]!.length, 1000)
        assert.isFalse(matches[1]!.cut)
      }))

    it.effect("a pattern the engine cannot take is a typed unsupported error, never a defect", () =>
      Effect.gen(function* () {
        const root = tree()
        const exit = yield* Effect.exit(collect(yield* fixture.make, spec(root, { pattern: "(unclosed" })))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
          const error = Cause.failureOption(exit.cause)
          assert.isTrue(error._tag === "Some" && error.value instanceof TextSearchError && error.value.kind === "unsupported")
        }
      }))

    it.effect("nothing found is success with no events; a missing start is not a defect", () =>
      Effect.gen(function* () {
        const root = tree()
        const search = yield* fixture.make
        assert.deepStrictEqual((yield* collect(search, spec(root, { pattern: "zzz-absent-zzz" }))).events, [])
        const exit = yield* Effect.exit(collect(search, spec(root, { path: "no/such/folder" })))
        if (Exit.isFailure(exit)) assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
      }))
  })
