/**
 * Every jail rule on the real file system, through the whole chain (runTool), symlink races included.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import { FileSystem } from "../../src/ports/FileSystem.js"
import { runTool, type RunToolResult } from "../../src/index.js"

let base: string
let ws: string
let outside: string

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-jail-")))
  ws = path.join(base, "ws")
  outside = path.join(base, "outside")
  fs.mkdirSync(path.join(ws, "src"), { recursive: true })
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(ws, "a.txt"), "alpha\n")
  fs.writeFileSync(path.join(ws, "src", "b.ts"), "export const b = 1\n")
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n")
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const build = { workMode: "BUILD" } as const
const run = (tool: string, args: unknown, extra: Partial<Parameters<typeof runTool>[0]> = {}) =>
  runTool({ workspace: ws, tool, args, ...extra })

const deniedBy = (r: RunToolResult, rule: string) => {
  expect(r.ok, JSON.stringify(r)).toBe(false)
  if (!r.ok) expect(r.error["rule"]).toBe(rule)
}

describe("jail on the real file system", () => {
  it("reads inside, refuses ../ and absolute paths outside, and prefix look-alikes", async () => {
    expect((await run("read_file", { path: "a.txt" })).ok).toBe(true)
    deniedBy(await run("read_file", { path: "../outside/secret.txt" }), "jail.outside-workspace")
    deniedBy(await run("read_file", { path: path.join(outside, "secret.txt") }), "jail.outside-workspace")
    fs.mkdirSync(ws + "-evil")
    fs.writeFileSync(path.join(ws + "-evil", "x"), "x")
    deniedBy(await run("read_file", { path: ws + "-evil/x" }), "jail.outside-workspace")
    expect((await run("read_file", { path: path.join(ws, "a.txt") })).ok).toBe(true)
  })

  it("denies a symlink that leads out: the file itself, a parent directory, a dangling link", async () => {
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "file-link"))
    fs.symlinkSync(outside, path.join(ws, "dir-link"))
    fs.symlinkSync(path.join(outside, "missing.txt"), path.join(ws, "dangling"))
    for (const p of ["file-link", "dir-link/secret.txt", "dir-link/new.txt"]) {
      deniedBy(await run("read_file", { path: p }), "jail.symlink-escape")
    }
    deniedBy(await run("write_file", { path: "dangling", content: "x" }, build), "jail.symlink-escape")
    deniedBy(await run("write_file", { path: "dir-link/new.txt", content: "x" }, build), "jail.symlink-escape")
    expect(fs.existsSync(path.join(outside, "missing.txt"))).toBe(false)
    expect(fs.existsSync(path.join(outside, "new.txt"))).toBe(false)
  })

  it("follows links that stay inside", async () => {
    fs.symlinkSync("src", path.join(ws, "src-link"))
    fs.symlinkSync("src/b.ts", path.join(ws, "b-link"))
    const r = await run("read_file", { path: "src-link/b.ts" })
    expect(r.ok && r.text).toContain("export const b")
    expect((await run("write_file", { path: "b-link", content: "changed\n" }, build)).ok).toBe(true)
    expect(fs.readFileSync(path.join(ws, "src", "b.ts"), "utf8")).toBe("changed\n")
    expect(fs.lstatSync(path.join(ws, "b-link")).isSymbolicLink()).toBe(true)
  })

  it("a link that goes out and comes back (../ after a link) is judged where the kernel would go", async () => {
    fs.symlinkSync(outside, path.join(ws, "out"))
    // out/../ws/a.txt: lexically inside, but the kernel resolves `out` first, then `..` from /outside.
    const r = await run("read_file", { path: "out/../ws/a.txt" })
    expect(r.ok).toBe(false)
  })

  it("denies NUL bytes, /proc aliases and minicode state", async () => {
    deniedBy(await run("read_file", { path: "a.txt\u0000.png" }), "jail.nul-byte")
    deniedBy(await run("read_file", { path: "/proc/self/root/etc/passwd" }, { policy: "unrestricted" }), "jail.proc-alias")
    deniedBy(await run("read_file", { path: `/proc/${process.pid}/cwd/a.txt` }, { policy: "unrestricted" }), "jail.proc-alias")
    deniedBy(await run("write_file", { path: ".minicode/state.db", content: "x" }, { ...build, policy: "allow-all" }), "jail.minicode-state")
  })

  it("denies secrets for read and write, even under allow-all, even when they do not exist yet", async () => {
    const secrets = [
      ".env", ".env.local", "config/.ENV.production", ".git/config", ".git/hooks/pre-commit", ".git-credentials", ".npmrc",
      ".netrc", ".ssh/id_rsa", "home/.aws/credentials", ".kube/config", ".docker/config.json", "id_ed25519", "certs/server.pem",
      "tls/site.key", "store.p12", "store.pfx", "credentials.json", "secrets.yaml", "config/Secrets.JSON"
    ]
    for (const p of secrets) {
      deniedBy(await run("read_file", { path: p }, { policy: "allow-all" }), "jail.sensitive")
      deniedBy(await run("write_file", { path: p, content: "x" }, { ...build, policy: "allow-all" }), "jail.sensitive")
    }
    for (const p of [".env.example", ".env.sample", ".env.template", "environment.ts", "id_rsa.pub", "keys.md", "secret-santa.txt"]) {
      const r = await run("write_file", { path: p, content: "x" }, build)
      expect(r.ok, `${p}: ${JSON.stringify(r)}`).toBe(true)
    }
  })

  it("a symlink inside the workspace that points at a secret is denied", async () => {
    fs.writeFileSync(path.join(ws, ".env"), "TOKEN=1\n")
    fs.symlinkSync(".env", path.join(ws, "innocent.txt"))
    deniedBy(await run("read_file", { path: "innocent.txt" }), "jail.sensitive")
  })

  it("refuses to write a file with more than one hard link", async () => {
    fs.linkSync(path.join(ws, "a.txt"), path.join(ws, "a-hard.txt"))
    deniedBy(await run("write_file", { path: "a.txt", content: "x" }, build), "jail.hardlink")
    deniedBy(await run("edit_file", { path: "a-hard.txt", old_string: "alpha", new_string: "x" }, build), "jail.hardlink")
    expect(fs.readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("alpha\n")
  })

  it("writes atomically through a temp file and leaves no temp files behind", async () => {
    expect((await run("write_file", { path: "src/new/deep.txt", content: "hello" }, build)).ok).toBe(true)
    expect(fs.readFileSync(path.join(ws, "src/new/deep.txt"), "utf8")).toBe("hello")
    expect(fs.readdirSync(path.join(ws, "src/new"))).toEqual(["deep.txt"])
  })
})

/** A FileSystem that swaps the world right before the first open: the race a checker must catch. */
const racing = (swap: () => void) =>
  Layer.effect(
    FileSystem,
    Effect.map(NodeFileSystem.make, (fsys) => {
      let swapped = false
      const once = () => {
        if (!swapped) {
          swapped = true
          swap()
        }
      }
      return FileSystem.of({
        ...fsys,
        readFile: (p, e) => Effect.zipRight(Effect.sync(once), fsys.readFile(p, e)),
        writeFile: (p, d, o) => Effect.zipRight(Effect.sync(once), fsys.writeFile(p, d, o))
      })
    })
  )

describe("symlink races between check and use", () => {
  it("a file swapped for a symlink to outside after the check is not read", async () => {
    const r = await run("read_file", { path: "a.txt" }, {
      adapters: {
        fileSystem: racing(() => {
          fs.rmSync(path.join(ws, "a.txt"))
          fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "a.txt"))
        })
      }
    })
    expect(r.ok).toBe(false)
    expect(JSON.stringify(r)).not.toContain("outside secret")
  })

  it("a parent directory swapped for a symlink to outside after the check is not read", async () => {
    fs.copyFileSync(path.join(outside, "secret.txt"), path.join(outside, "b.ts"))
    const r = await run("read_file", { path: "src/b.ts" }, {
      adapters: {
        fileSystem: racing(() => {
          fs.renameSync(path.join(ws, "src"), path.join(ws, "src-old"))
          fs.symlinkSync(outside, path.join(ws, "src"))
        })
      }
    })
    expect(r.ok).toBe(false)
    expect(JSON.stringify(r)).not.toContain("outside secret")
  })

  it("a file replaced by another after the check is not overwritten", async () => {
    const r = await run("write_file", { path: "a.txt", content: "mine" }, {
      ...build,
      adapters: {
        fileSystem: racing(() => {
          fs.rmSync(path.join(ws, "a.txt"))
          fs.writeFileSync(path.join(ws, "a.txt"), "theirs")
        })
      }
    })
    expect(r.ok).toBe(false)
    expect(fs.readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("theirs")
  })

  it("a directory swapped for a symlink to outside before a write does not receive the file", async () => {
    const r = await run("write_file", { path: "src/new.ts", content: "x" }, {
      ...build,
      adapters: {
        fileSystem: racing(() => {
          fs.renameSync(path.join(ws, "src"), path.join(ws, "src-old"))
          fs.symlinkSync(outside, path.join(ws, "src"))
        })
      }
    })
    expect(r.ok).toBe(false)
    expect(fs.readdirSync(outside)).toEqual(["secret.txt"])
  })
})
