#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768 node --max-semi-space-size=8 --heap-growing-percent=20 --interrupt-budget=16384
/**
 * The shipped executable (dist/bin.js): runs the bundle of src/bin.ts (one CommonJS file) through a V8 code cache.
 * Compiling the bundle was most of `minicode mcp serve`'s start-up, and Node 20 has no module compile cache
 * (`module.enableCompileCache` is Node 22). The cache is written once per bundle, Node version and flags, a
 * moment after start or at exit, so it holds the functions that run (not only the top level); `mcp serve` and the
 * other commands each have their own. The bundle's path is part of the key: V8 keeps the file name a cache was made
 * for, so two installs of one bundle (two checkouts, a global and a local install) sharing a cache would print
 * each other's paths in stack traces. It lives in the user's cache folder ($XDG_CACHE_HOME/minicode, else
 * ~/.cache/minicode, else a private folder in the temp directory), never in the workspace; a missing, unwritable
 * or rejected cache only means compiling as before. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 *
 * The shebang keeps V8's heap close to what it holds: a long-running `mcp serve` makes many short-lived objects per
 * call; a young generation of 8 MB semi-spaces (V8's default grows to 16) and an old generation allowed to grow 20 %
 * past its live size between full collections (V8 otherwise lets it reach several times that) keep resident memory
 * near 110 MB under the bench's load (without the growth limit: 135-165 MB), at some cost in collection time. 4 MB
 * semi-spaces saved another 8 MB but copied the calls in flight more often: 32-way reads were ~8 % slower (three
 * alternating bench pairs). Neither flag is a cap: a heap that needs more still gets it.
 * MALLOC_ARENA_MAX=2 keeps glibc from giving each thread that allocates (V8's collector helpers, libuv's pool) an
 * arena of its own, which hold freed memory: measured over 28,000 calls of the bench's kinds, resident memory at the
 * end went from 112-113 MB to 104 MB (no change in speed). MALLOC_MMAP_THRESHOLD_=32768 has every block of 32 KiB or
 * more mapped on its own and unmapped when freed, rather than carved from a heap that glibc keeps: V8's parser
 * zones (compiling the bundle when there is no code cache), the code cache's bytes, pipe reads. Measured on the
 * bench tree: mcp serve at rest after a start that compiles, 80 MB instead of 111; with the cache, 80 instead of 82;
 * its peak during the grep bench's calls, 92-94 MB instead of 101-102 (no change in speed beyond the noise).
 * Other C libraries ignore them, and the tools' child processes never see them (their environment is built from an
 * allowlist; ripgrep's is stripped of them, src/adapters/search/RipgrepSearch.ts).
 * A quarter of V8's default interrupt budget has hot functions optimised after fewer calls: a session's path through
 * the chain spans many small functions, and at the default a server took ~6000 calls to reach its steady speed
 * (measured: a sequential read cost 860 µs of server CPU over the first 1000 calls, 520 µs over the next 1000,
 * 430 µs from the 3000th; with the budget lowered, 790, 415 and 390 µs). Start-up pays ~10 ms for it.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as vm from "node:vm"
import { version } from "./cli/Version.js"

/** The bundle's file name beside this one; scripts/build.mjs defines it, with the bundle's content hash in it. */
declare const MINICODE_MAIN: string

/** A short stable digest (FNV-1a) for the cache file's name. */
const digest = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(36)
}

/** Creates one folder level (never recursively: Node's recursive mkdir can spin forever under /proc). */
const mkdir = (dir: string) => {
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch {
    // exists, or cannot be made: the check below decides
  }
}

/** `parent/name` as a folder only this user can write, or undefined: the cache is code, nobody else may plant it. */
const privateDir = (parent: string, name: string): string | undefined => {
  const dir = path.join(parent, name)
  mkdir(parent)
  mkdir(dir)
  try {
    const st = fs.lstatSync(dir)
    const uid = process.getuid?.()
    return st.isDirectory() && (uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0)) ? dir : undefined
  } catch {
    return undefined
  }
}

const cacheDir = (env: NodeJS.ProcessEnv): string | undefined => {
  const xdg = env["XDG_CACHE_HOME"]
  const home = (() => {
    try {
      return os.homedir()
    } catch {
      return ""
    }
  })()
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.isAbsolute(home) ? path.join(home, ".cache") : undefined
  return (base === undefined ? undefined : privateDir(base, "minicode")) ?? privateDir(os.tmpdir(), `minicode-cache-${process.getuid?.() ?? "user"}`)
}

/** A cache file is the SHA-1 of its payload, then the payload: V8 trusts what it is given, and a damaged cache would crash it. */
const sha1 = (data: Uint8Array) => crypto.createHash("sha1").update(data).digest()

const readCache = (file: string): Buffer | undefined => {
  try {
    const data = fs.readFileSync(file)
    const payload = data.subarray(20)
    return data.length > 20 && sha1(payload).equals(data.subarray(0, 20)) ? payload : undefined
  } catch {
    return undefined
  }
}

const staleMs = 7 * 24 * 60 * 60 * 1000

/** Cache files of other bundles, flags or Node versions that nobody has written for a week go. */
const prune = (dir: string, keep: string) => {
  try {
    for (const name of fs.readdirSync(dir)) {
      const other = path.join(dir, name)
      if (other === keep || !/^minicode-[A-Za-z0-9]+-(serve|cli)-[a-z0-9]+\.cache(\.\d+\.tmp)?$/.test(name)) continue
      if (Date.now() - fs.lstatSync(other).mtimeMs > staleMs) fs.rmSync(other, { force: true })
    }
  } catch {
    // a cache that cannot be tidied is still a cache
  }
}

const writeCache = (file: string, payload: Buffer) => {
  prune(path.dirname(file), file)
  const temporary = `${file}.${process.pid}.tmp`
  try {
    fs.writeFileSync(temporary, Buffer.concat([sha1(payload), payload]), { mode: 0o600 })
    fs.renameSync(temporary, file)
  } catch {
    try {
      fs.rmSync(temporary, { force: true })
    } catch {
      // nothing to clean up
    }
  }
}

// `minicode --version` alone is answered here, as the CLI words it, without reading or compiling the program: it
// cost 4-6× `node -e 0` through the bundle, and scripts and editors call it to find the install.
if (process.argv.length === 3 && process.argv[2] === "--version") {
  try {
    fs.writeSync(1, `${version}\n\n`)
  } catch {
    // a closed stdout: nothing to tell
  }
  process.exit(0)
}

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), MINICODE_MAIN)
const mode = process.argv[2] === "mcp" && process.argv[3] === "serve" ? "serve" : "cli"
const dir = process.env["NODE_DISABLE_COMPILE_CACHE"] === "1" ? undefined : cacheDir(process.env)
const cacheFile =
  dir === undefined
    ? undefined
    : path.join(dir, `${path.basename(MINICODE_MAIN, ".cjs")}-${mode}-${digest(`${process.version} ${process.arch} ${process.execArgv.join(" ")} ${file}`)}.cache`)

/**
 * The bundle compiled (through the cache when there is one). The bundle is already wrapped as a CommonJS module's
 * function (scripts/build.mjs), so its text is compiled as read: the one copy the script keeps. The cache's bytes
 * are a local: not kept for the whole life of a server.
 */
const compile = () => {
  const source = fs.readFileSync(file, "utf8")
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile)
  const compiled = new vm.Script(source, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData })
  })
  return { script: compiled, cached: cachedData !== undefined && compiled.cachedDataRejected !== true }
}

const { script, cached } = compile()

if (cacheFile !== undefined && !cached) {
  let saved = false
  const save = () => {
    if (saved) return
    saved = true
    writeCache(cacheFile, script.createCachedData())
  }
  // Soon after start-up, before a busy server's full collections age the start-up code out of the heap (a cache
  // written later lacks it, and an accepted cache is never rewritten).
  setTimeout(save, 500).unref()
  process.once("exit", save)
}

const main: unknown = script.runInThisContext()
if (typeof main !== "function") throw new Error(`${file} is not a bundle`)
const module = { exports: {} }
main.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file))
