import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
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
