import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as MemoryFileSystem from "../../../src/adapters/fs/MemoryFileSystem.js"
import * as NodeFileSystem from "../../../src/adapters/fs/NodeFileSystem.js"
import { contract } from "../../contracts/FileSystem.contract.js"

contract("memory", {
  make: Effect.map(
    MemoryFileSystem.make({ "/root/a.txt": "alpha", "/root/dir": { dir: true }, "/root/link": { symlink: "a.txt" }, "/root/dir/back": { symlink: ".." } }),
    ({ fs }) => ({ fs, root: "/root" })
  )
})

contract("node", {
  make: Effect.gen(function* () {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-fs-")))
    fs.writeFileSync(path.join(root, "a.txt"), "alpha")
    fs.mkdirSync(path.join(root, "dir"))
    fs.symlinkSync("a.txt", path.join(root, "link"))
    fs.symlinkSync("..", path.join(root, "dir", "back"))
    return { fs: yield* NodeFileSystem.make, root }
  })
})

describe("NodeFileSystem: a read expecting the link count the jail saw", () => {
  // The jail judges a single-link file from the stored scan without searching for its other names: a hard link
  // made between that judgement and the open (a protected file's other name, maybe) must not be read.
  it.effect("refuses a file with more links than expected, reads it with as many", () =>
    Effect.gen(function* () {
      const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-fs-links-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
      const file = path.join(root, "a.txt")
      fs.writeFileSync(file, "alpha")
      const nfs = yield* NodeFileSystem.make
      const st = fs.lstatSync(file)
      assert.strictEqual(new TextDecoder().decode(yield* nfs.readFile(file, { dev: st.dev, ino: st.ino, nlink: 1 })), "alpha")
      fs.linkSync(file, path.join(root, "b.txt"))
      const refused = yield* Effect.either(nfs.readFile(file, { dev: st.dev, ino: st.ino, nlink: 1 }))
      assert.isTrue(Either.isLeft(refused) && refused.left.code === "ECHANGED")
      assert.strictEqual(new TextDecoder().decode(yield* nfs.readFile(file, { dev: st.dev, ino: st.ino, nlink: 2 })), "alpha")
    }).pipe(Effect.scoped)
  )
})
