/**
 * One suite for every FileSystem adapter: the in-memory fake must behave like the Node one where the chain
 * relies on it (symlinks not followed by lstat/readFile, identity checks, atomic replace, missing parents).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type { FileSystemShape, TreeFolder } from "../../src/ports/FileSystem.js"

export interface Fixture {
  /**
   * An adapter over a fresh tree containing `root/a.txt` ("alpha"), `root/dir/`, `root/link -> a.txt` and
   * `root/dir/back -> ..` (a symlinked directory: `root/dir/back/a.txt` reaches `root/a.txt` through it).
   */
  readonly make: Effect.Effect<{ readonly fs: FileSystemShape; readonly root: string }>
}

const enc = new TextEncoder()
const dec = new TextDecoder()

export const contract = (name: string, fixture: Fixture) =>
  describe(`FileSystem contract: ${name}`, () => {
    it.effect("lstat reports kinds and does not follow a final symlink; missing is None", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`)).kind, "file")
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/dir`)).kind, "directory")
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/link`)).kind, "symlink")
        assert.strictEqual(yield* fs.readlink(`${root}/link`), "a.txt")
        assert.isTrue(Option.isNone(yield* fs.lstat(`${root}/missing`)))
      }))

    it.effect("readFile refuses to follow a final symlink and checks identity", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/a.txt`)), "alpha")
        const viaLink = yield* Effect.either(fs.readFile(`${root}/link`))
        assert.isTrue(Either.isLeft(viaLink))
        const stat = Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`))
        const wrong = yield* Effect.either(fs.readFile(`${root}/a.txt`, { dev: stat.dev, ino: stat.ino + 999_999 }))
        assert.isTrue(Either.isLeft(wrong) && wrong.left.code === "ECHANGED")
      }))

    it.effect("readChunks gives a file's bytes in order, stops when told, and opens and checks it as readFile does", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        const big = "line of text\n".repeat(200_000)
        yield* fs.writeFile(`${root}/big.txt`, enc.encode(big))
        let text = ""
        let chunks = 0
        yield* fs.readChunks(`${root}/big.txt`, (bytes) => {
          text += dec.decode(bytes.slice())
          chunks++
          return true
        })
        assert.isTrue(text === big)
        assert.isAbove(chunks, 1)
        let asked = 0
        yield* fs.readChunks(`${root}/big.txt`, () => ++asked < 2)
        assert.strictEqual(asked, 2)
        const stat = Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`))
        const parts: Array<string> = []
        yield* fs.readChunks(`${root}/a.txt`, (b) => (parts.push(dec.decode(b.slice())), true), { dev: stat.dev, ino: stat.ino, nlink: stat.nlink })
        assert.deepStrictEqual(parts, ["alpha"])
        const never = () => assert.fail("no chunk of a refused file")
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.readChunks(`${root}/link`, never))))
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.readChunks(`${root}/dir`, never))))
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.readChunks(`${root}/dir/back/a.txt`, never))))
        const wrong = yield* Effect.either(fs.readChunks(`${root}/a.txt`, never, { dev: stat.dev, ino: stat.ino + 999_999 }))
        assert.isTrue(Either.isLeft(wrong) && wrong.left.code === "ECHANGED")
      }))

    it.effect("writeFile replaces atomically, keeps the mode, refuses when the file changed or a parent is missing", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        yield* fs.chmod(`${root}/a.txt`, 0o600)
        yield* fs.writeFile(`${root}/a.txt`, enc.encode("beta"))
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/a.txt`)), "beta")
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`)).mode, 0o600)
        const absent = yield* Effect.either(fs.writeFile(`${root}/a.txt`, enc.encode("x"), { expect: "absent" }))
        assert.isTrue(Either.isLeft(absent) && absent.left.code === "ECHANGED")
        const orphan = yield* Effect.either(fs.writeFile(`${root}/nope/b.txt`, enc.encode("x")))
        assert.isTrue(Either.isLeft(orphan))
        assert.deepStrictEqual((yield* fs.readDir(root)).map((e) => e.name).sort(), ["a.txt", "dir", "link"])
      }))

    it.effect("symlink makes a link with the target as given, never over an existing entry nor through a link", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        yield* fs.symlink("../elsewhere", `${root}/dir/made`)
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/dir/made`)).kind, "symlink")
        assert.strictEqual(yield* fs.readlink(`${root}/dir/made`), "../elsewhere")
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.symlink("x", `${root}/a.txt`))))
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.symlink("x", `${root}/nope/made`))))
        // A parent that is a symlink is not followed (`dir/back -> ..`): nothing appears at the root.
        const through = yield* Effect.either(fs.symlink("x", `${root}/dir/back/made2`))
        assert.isTrue(Either.isLeft(through) || Option.isNone(yield* fs.lstat(`${root}/made2`)))
      }))

    it.effect("walkTree lists each folder once with the kinds readDir gives, enters only what visit names, follows no link", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        const tree = yield* fs.walkTree(root)
        const seen: Array<{ readonly rel: string; readonly entries: ReadonlyArray<string> }> = []
        const reads: Array<string | undefined> = []
        const visit = (folder: TreeFolder) => {
          seen.push({ rel: folder.rel, entries: [...folder.entries].map((e) => `${e.name}:${e.kind}`).sort() })
          if (folder.rel === "") for (const name of ["a.txt", "link", "dir", "missing"]) reads.push(((b) => (b === undefined ? undefined : dec.decode(b)))(folder.read(name)))
          // Asked to enter a symlink to a folder ("back" -> ..) too: it is passed over, not followed.
          return folder.entries.filter((e) => e.kind !== "file").map((e) => e.name)
        }
        while (yield* tree.step(1, visit)) {
          // one folder at a time, as a walk that breathes between steps
        }
        yield* tree.close
        assert.deepStrictEqual(seen, [
          { rel: "", entries: ["a.txt:file", "dir:directory", "link:symlink"] },
          { rel: "dir", entries: ["back:symlink"] }
        ])
        assert.deepStrictEqual(reads, ["alpha", undefined, undefined, undefined])
        assert.deepStrictEqual(
          [...(yield* fs.readDir(root))].map((e) => `${e.name}:${e.kind}`).sort(),
          seen[0]?.entries
        )
        const refused = yield* Effect.either(fs.walkTree(`${root}/link`))
        assert.isTrue(Either.isLeft(refused))
      }))

    it.effect("writeFile takes chunks one at a time, each written before the next (one buffer reused for all)", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        // 5 MB in 64 KB chunks, the same buffer refilled each time: past the adapters' one-step size.
        const buffer = new Uint8Array(64 * 1024)
        function* chunks() {
          for (let k = 0; k < 80; k++) {
            buffer.fill(k)
            yield k === 79 ? buffer.subarray(0, 7) : buffer
          }
        }
        yield* fs.writeFile(`${root}/chunked.bin`, chunks(), { mode: 0o600 })
        const back = yield* fs.readFile(`${root}/chunked.bin`)
        assert.strictEqual(back.length, 79 * buffer.length + 7)
        let wrong = -1
        for (let i = 0; i < back.length; i++) if (back[i] !== Math.floor(i / buffer.length)) wrong = wrong === -1 ? i : wrong
        assert.strictEqual(wrong, -1)
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/chunked.bin`)).mode & 0o777, 0o600)
      }))

    it.effect("makeDirectory, rename and remove", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        yield* fs.makeDirectory(`${root}/x/y`)
        yield* fs.rename(`${root}/a.txt`, `${root}/x/y/a.txt`)
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/x/y/a.txt`)), "alpha")
        yield* fs.remove(`${root}/x/y/a.txt`)
        assert.isTrue(Option.isNone(yield* fs.lstat(`${root}/x/y/a.txt`)))
        yield* fs.remove(`${root}/x`, { recursive: true })
        assert.isTrue(Option.isNone(yield* fs.lstat(`${root}/x`)))
      }))
  
    it.effect("scan reads regular files in order, chunk by chunk, passes symlinks and folders over, and refuses a symlinked directory", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        const big = "line of text\n".repeat(200_000)
        yield* fs.writeFile(`${root}/big.txt`, enc.encode(big))
        yield* fs.writeFile(`${root}/empty.txt`, new Uint8Array())
        const seen: Array<{ name: string; text: string; firsts: number; lasts: number }> = []
        const names = ["a.txt", "link", "dir", "missing", "big.txt", "empty.txt"]
        const missed = yield* fs.scan(root, names, (i, bytes, first, last) => {
          if (first) seen.push({ name: names[i] ?? "", text: "", firsts: 0, lasts: 0 })
          const s = seen[seen.length - 1]
          if (s !== undefined) seen[seen.length - 1] = { ...s, text: s.text + dec.decode(bytes.slice()), firsts: s.firsts + (first ? 1 : 0), lasts: s.lasts + (last ? 1 : 0) }
          return true
        })
        assert.deepStrictEqual(missed, [])
        assert.deepStrictEqual(seen.map((s) => [s.name, s.firsts, s.lasts]), [["a.txt", 1, 1], ["big.txt", 1, 1], ["empty.txt", 1, 1]])
        assert.strictEqual(seen[0]?.text, "alpha")
        assert.isTrue(seen[1]?.text === big)
        let chunks = 0
        yield* fs.scan(root, ["big.txt"], () => ++chunks < 2)
        assert.strictEqual(chunks, 2)
        const opened: Array<number> = []
        yield* fs.scan(root, ["a.txt", "big.txt", "empty.txt"], (i, _bytes, first) => {
          if (first) opened.push(i)
          return "stop"
        })
        assert.deepStrictEqual(opened, [0])
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.scan(`${root}/dir/back`, ["a.txt"], () => true))))
        // `skip` is asked each opened file's identity (as lstat gives it) and passes the file over when true.
        const big1 = Option.getOrThrow(yield* fs.lstat(`${root}/big.txt`))
        const kept: Array<number> = []
        yield* fs.scan(root, ["a.txt", "big.txt", "empty.txt"], (i, _bytes, first) => (first && kept.push(i), true), (dev, ino) => dev === big1.dev && ino === big1.ino)
        assert.deepStrictEqual(kept, [0, 2])
      }))

    it.effect("no operation reaches through a symlinked directory: each fails and nothing changes", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        const via = `${root}/dir/back`
        const attempts = [
          fs.readFile(`${via}/a.txt`),
          fs.writeFile(`${via}/new.txt`, enc.encode("x")),
          fs.writeFile(`${via}/a.txt`, enc.encode("x")),
          fs.makeDirectory(`${via}/made`),
          fs.rename(`${root}/a.txt`, `${via}/moved.txt`),
          fs.rename(`${via}/a.txt`, `${root}/dir/moved.txt`),
          fs.remove(`${via}/a.txt`),
          fs.chmod(`${via}/a.txt`, 0o600),
          fs.readDir(via)
        ]
        for (const attempt of attempts) assert.isTrue(Either.isLeft(yield* Effect.either(attempt)))
        assert.deepStrictEqual((yield* fs.readDir(root)).map((e) => e.name).sort(), ["a.txt", "dir", "link"])
        assert.deepStrictEqual((yield* fs.readDir(`${root}/dir`)).map((e) => e.name), ["back"])
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/a.txt`)), "alpha")
        assert.notStrictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`)).mode, 0o600)
      }))

    it.effect("chmod and remove act on a final symlink itself, never on its target", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        const mode = Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`)).mode
        assert.isTrue(Either.isLeft(yield* Effect.either(fs.chmod(`${root}/link`, 0o600))))
        assert.strictEqual(Option.getOrThrow(yield* fs.lstat(`${root}/a.txt`)).mode, mode)
        yield* fs.remove(`${root}/link`)
        assert.isTrue(Option.isNone(yield* fs.lstat(`${root}/link`)))
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/a.txt`)), "alpha")
      }))

    it.effect("a recursive remove does not descend through a symlinked directory", () =>
      Effect.gen(function* () {
        const { fs, root } = yield* fixture.make
        yield* fs.remove(`${root}/dir`, { recursive: true })
        assert.isTrue(Option.isNone(yield* fs.lstat(`${root}/dir`)))
        assert.strictEqual(dec.decode(yield* fs.readFile(`${root}/a.txt`)), "alpha")
      }))
  })
