/**
 * The big search tree of issue 22, rebuilt deterministically (no network): a committed git repository with
 *
 * - `node_modules/`: a vendored copy of real packages (the regular files of this install's node_modules up to 2 MB,
 *   in path order; with `copyFrom` unset, or for a small tree, synthetic packages instead);
 * - `packages/app-N/src/…`: synthetic TypeScript and JavaScript modules (seeded, so the same bytes every time);
 * - `small/`: many tiny files; `big/huge.ts`: a 50,000-line file;
 * - `third_party/sqlite/sqlite3.c` and `third_party/sqlite-copy/sqlite3.c`: two copies of a > 5 MB C file with a
 *   known number of `SQLITE_BENCH_MARKER` lines each (`markers.bigC`);
 * - binary files holding the markers (`assets/*.bin`), a CRLF file, a file without a final newline;
 * - `.gitignore` rules at several depths (root, each package, one three levels down with a negation), and ignored
 *   files that hold the markers (`dist/`, `*.log`, `generated/`);
 * - secrets that hold the markers (`.env`, `.env.local`, `id_rsa`, `*.pem`, `.npmrc`) at several depths;
 * - symlinks out of the tree (a folder, a file) and inside it, none of which a search follows.
 *
 * `files` is the target count (60,000 ≈ the issue's 65,799 files and 422 MB with the vendored copy). Used by
 * bench/grep.bench.ts (cached in ~/.cache/minicode-bench/tree-<version>-<files>) and by the equality tests (small
 * trees in a temporary folder).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const version = "v1"

/** The words the tests and the bench search for, and how many lines hold them where it is known. */
export const markers = {
  /** On exactly `bigCHits` lines of each big C copy. */
  bigC: "SQLITE_BENCH_MARKER",
  bigCHits: 8,
  /** In ignored files, secrets, binaries, symlink targets and a few searchable files. */
  canary: "CANARY_TOKEN_7f3a",
  /** Every synthetic module exports a function named like this. */
  common: "createHandler"
} as const

export interface TreeOptions {
  readonly dir: string
  readonly files: number
  /** A node_modules to copy real packages from (the vendored part); synthetic packages when undefined. */
  readonly copyFrom?: string | undefined
  /** Bytes of the big C file (each copy); default 6 MB. */
  readonly bigCBytes?: number
}

/** mulberry32: a small seeded generator, so every run writes the same bytes (test/support/OddTree.ts's too). */
export const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const words = [
  "value", "result", "config", "options", "context", "handler", "request", "response", "buffer", "index", "state",
  "effect", "layer", "scope", "fiber", "stream", "parse", "format", "token", "node", "visitor", "plugin", "module",
  "source", "target", "cache", "entry", "chunk", "error", "cause", "schema", "record", "signal", "queue", "worker"
]

const pick = <A>(r: () => number, xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)] as A

/** A plausible TypeScript module of about `lines` lines. */
const tsModule = (r: () => number, id: number, lines: number): string => {
  const out: Array<string> = [`import { ${pick(r, words)} } from "./${pick(r, words)}-${id % 97}.js"`, ""]
  while (out.length < lines) {
    const a = pick(r, words)
    const b = pick(r, words)
    switch (Math.floor(r() * 6)) {
      case 0:
        out.push(`export const ${a}${id}_${out.length} = (${b}: number) => ${b} * ${Math.floor(r() * 1000)}`)
        break
      case 1:
        out.push(`export function ${markers.common}${id}_${out.length}(${a}: string, ${b}?: unknown) {`, `  return { ${a}, ${b}, id: "${a}-${b}" }`, "}")
        break
      case 2:
        out.push(`// ${a} ${b}: keeps the ${pick(r, words)} in sync with the ${pick(r, words)} (see issue #${Math.floor(r() * 5000)})`)
        break
      case 3:
        out.push(`interface ${a[0]?.toUpperCase()}${a.slice(1)}${id}_${out.length} {`, `  readonly ${b}: ${pick(r, ["string", "number", "boolean"])}`, "}")
        break
      case 4:
        out.push(`if (${a}.length > ${Math.floor(r() * 64)}) throw new Error("${b} too long: " + ${a}.length)`)
        break
      default:
        out.push("")
    }
  }
  return out.join("\n") + "\n"
}

/** A C file of at least `bytes` bytes with exactly `markers.bigCHits` marker lines, evenly spread. */
const bigC = (bytes: number): string => {
  const r = rng(42)
  const chunks: Array<string> = ["/* synthetic amalgamation */\n#include <stdio.h>\n"]
  let size = chunks[0]?.length ?? 0
  let fn = 0
  const every = Math.floor(bytes / 300 / markers.bigCHits)
  let placed = 0
  while (size < bytes || placed < markers.bigCHits) {
    const body =
      `static int ${pick(r, words)}_${fn}(sqlite3 *db, int ${pick(r, words)}){\n` +
      `  int rc = SQLITE_OK;\n  if( db==0 ) return SQLITE_MISUSE_BKPT;\n  rc = ${pick(r, words)}Step(db, ${fn});\n` +
      (fn % every === 0 && placed < markers.bigCHits ? `  /* ${markers.bigC} ${placed++} */\n` : "") +
      "  return rc;\n}\n\n"
    chunks.push(body)
    size += body.length
    fn++
  }
  return chunks.join("")
}

const write = (file: string, content: string | Uint8Array) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}

/** The regular files under `dir` up to `maxBytes`, in path order (symlinks and special files left out). */
const realFiles = (dir: string, maxBytes: number): Array<string> => {
  const out: Array<string> = []
  const visit = (rel: string) => {
    const entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    for (const e of entries) {
      const r = rel === "" ? e.name : `${rel}/${e.name}`
      if (e.isDirectory()) {
        if (e.name !== ".git" && e.name !== ".bin") visit(r)
      } else if (e.isFile() && fs.statSync(path.join(dir, r)).size <= maxBytes) out.push(r)
    }
  }
  visit("")
  return out
}

/** Writes the tree into `options.dir` (which must not exist or be empty) and commits it. */
export const generate = (options: TreeOptions): void => {
  const root = options.dir
  fs.mkdirSync(root, { recursive: true })
  const r = rng(7)
  const at = (rel: string) => path.join(root, rel)
  let budget = options.files

  write(at(".gitignore"), "/dist/\n*.log\ncoverage/\n.cache/\n")
  write(at("README.md"), `# bench tree ${version}\n\nA synthetic monorepo. ${markers.canary} is mentioned here once.\n`)
  budget -= 2

  // The vendored part: real packages when given (about 40 % of the files), else synthetic ones.
  const vendoredShare = Math.floor(options.files * 0.42)
  if (options.copyFrom !== undefined && fs.existsSync(options.copyFrom)) {
    for (const rel of realFiles(options.copyFrom, 2 * 1024 * 1024).slice(0, vendoredShare)) {
      const to = at(`node_modules/${rel}`)
      fs.mkdirSync(path.dirname(to), { recursive: true })
      fs.copyFileSync(path.join(options.copyFrom, rel), to)
      budget--
    }
  } else {
    for (let i = 0; i < vendoredShare; i++) {
      write(at(`node_modules/pkg-${i % 40}/lib/${Math.floor(i / 40) % 25}/m${i}.js`), tsModule(r, i, 20 + Math.floor(r() * 80)))
      budget--
    }
  }

  // The big files.
  write(at("big/huge.ts"), tsModule(rng(99), 1, 50_000))
  const c = bigC(options.bigCBytes ?? 6 * 1024 * 1024)
  write(at("third_party/sqlite/sqlite3.c"), c)
  write(at("third_party/sqlite-copy/sqlite3.c"), c)
  budget -= 3

  // Odd files: binaries holding the markers, CRLF, no final newline, invalid UTF-8, a long line.
  const bin = Buffer.concat([Buffer.from(`\x7fELF\0\0\0${markers.canary}\n`), Buffer.alloc(4096, 1), Buffer.from(`${markers.common}\n`)])
  write(at("assets/logo.bin"), bin)
  write(at("assets/data/blob.bin"), bin)
  write(at("misc/crlf.ts"), `export const a = 1\r\n// ${markers.canary} in a CRLF file\r\nexport const b = 2\r\n`)
  write(at("misc/no-newline.ts"), `export const last = "${markers.canary}"`)
  write(at("misc/latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, ...Buffer.from(`${markers.canary}\n`)]))
  write(at("misc/long-line.js"), `var x = "${"a".repeat(20_000)} ${markers.canary}"\n`)
  budget -= 6

  // Ignored files (by the root, a package's and a deep .gitignore) and a negation three levels down.
  write(at("dist/bundle.js"), `${markers.canary}\n`)
  write(at("debug.log"), `${markers.canary}\n`)
  write(at("packages/app-0/src/deep/nested/.gitignore"), "*.generated.ts\n!keep.generated.ts\n")
  write(at("packages/app-0/src/deep/nested/skip.generated.ts"), `export const s = "${markers.canary}"\n`)
  write(at("packages/app-0/src/deep/nested/keep.generated.ts"), `export const k = "${markers.canary}"\n`)
  budget -= 5

  // Secrets at several depths, all holding the canary: none may be searched.
  for (const rel of [".env", "packages/app-1/.env.local", "config/id_rsa", "deploy/certs/deep/server.pem", ".npmrc", "packages/app-2/src/secrets.json", "infra/prod.tfvars"]) {
    write(at(rel), `TOKEN=${markers.canary}\n`)
    budget--
  }

  // Symlinks: out of the tree (a folder and a file holding the canary), and inside it.
  const outside = `${root}.outside`
  write(path.join(outside, "leak.txt"), `${markers.canary}\n`)
  fs.symlinkSync(outside, at("outside-dir"))
  fs.symlinkSync(path.join(outside, "leak.txt"), at("outside-file.txt"))
  fs.symlinkSync("/etc", at("etc-link"))
  fs.symlinkSync("misc/crlf.ts", at("alias.ts"))

  // The small files.
  const small = Math.min(10_000, Math.floor(budget * 0.3))
  for (let i = 0; i < small; i++) write(at(`small/s${Math.floor(i / 100)}/f${i}.ts`), `export const v${i} = ${i} // ${pick(r, words)}\n`)
  budget -= small

  // The packages: each with a .gitignore and an ignored dist/ and generated/ folder.
  const perPackage = 400
  const packages = Math.max(3, Math.ceil(budget / perPackage))
  for (let p = 0; p < packages && budget > 0; p++) {
    write(at(`packages/app-${p}/.gitignore`), "/dist/\ngenerated/\n")
    write(at(`packages/app-${p}/dist/index.js`), `${markers.canary}\n`)
    write(at(`packages/app-${p}/src/generated/types.ts`), `${markers.canary}\n`)
    write(at(`packages/app-${p}/package.json`), JSON.stringify({ name: `@bench/app-${p}`, version: "1.0.0" }, null, 2) + "\n")
    budget -= 4
    for (let f = 0; f < perPackage && budget > 0; f++, budget--) {
      const lines = r() < 0.05 ? 600 + Math.floor(r() * 1500) : 40 + Math.floor(r() * 160)
      const ext = r() < 0.7 ? "ts" : "js"
      write(at(`packages/app-${p}/src/${pick(r, words)}/${Math.floor(f / 20)}/mod${f}.${ext}`), tsModule(r, p * perPackage + f, lines))
    }
  }

  const git = (...args: Array<string>) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "core.compression=1", ...args], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      maxBuffer: 1 << 26
    })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-q", "-m", "bench tree")
}

const cacheHome = () => process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache")

/**
 * The bench tree of `files` files, generated once into the cache and reused (`.complete` marks a finished one).
 * BENCH_TREE_FILES overrides the size (e.g. 6000 for a quick run).
 */
export const cached = (files: number, copyFrom?: string): string => {
  const dir = path.join(cacheHome(), "minicode-bench", `tree-${version}-${files}`)
  if (fs.existsSync(path.join(dir, ".git", "minicode-bench-complete"))) return fs.realpathSync(dir)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(`${dir}.outside`, { recursive: true, force: true })
  const started = Date.now()
  generate({ dir, files, copyFrom })
  fs.writeFileSync(path.join(dir, ".git", "minicode-bench-complete"), "")
  console.log(`generated ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return fs.realpathSync(dir)
}
