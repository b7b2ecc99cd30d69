// Bundles the program and the library with esbuild, so start-up does not walk thousands of modules.
// Native and heavy optional adapters stay external and load lazily.
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { chmodSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"

// mysql2 stays external like pg (imported with import() by its engine only): bundled, it and its encodings
// (iconv-lite) were a third of the program bundle, which every start reads, hashes and keeps as source text in the
// heap (mcp serve at rest: 83 MB instead of 90).
// The MCP SDK is bundled, not external: one minified bundle loads in a third of the time of the SDK's ~80 ESM files.
const external = ["tree-sitter", "tree-sitter-bash", "tree-sitter-javascript", "tree-sitter-python", "tree-sitter-typescript", "tree-sitter-go", "tree-sitter-rust", "tree-sitter-java", "tree-sitter-c", "tree-sitter-cpp", "tree-sitter-c-sharp", "tree-sitter-ruby", "tree-sitter-php", "better-sqlite3", "vscode-jsonrpc", "libpg-query", "pg", "undici", "ipaddr.js", "mysql2"]

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  minify: process.env["MINICODE_BUILD_DEV"] !== "1",
  sourcemap: false,
  legalComments: "none",
  external,
  logLevel: "warning"
}
const esm = { ...common, format: "esm", banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } }

// Start clean: stale chunks and bundles of earlier builds would otherwise pile up beside the new ones.
rmSync("dist", { recursive: true, force: true })

// The library: ESM, code splitting, so adapters imported with import() become chunks loaded on first use.
await build({ ...esm, entryPoints: { index: "src/index.ts" }, outdir: "dist", splitting: true, chunkNames: "chunks/[name]-[hash]" })

// The program (src/bin.ts): one CommonJS file, run by the launcher through a V8 code cache, which Node 20 offers for
// scripts only. What it imports with import() is bundled too, behind lazy initialisers, so it is parsed (or read
// from the cache) but runs only when a command needs it; externals become require() (they are all CommonJS).
const program = await build({
  ...common,
  format: "cjs",
  entryPoints: { minicode: "src/bin.ts" },
  outdir: "dist",
  entryNames: "[name]-[hash]",
  outExtension: { ".js": ".cjs" },
  supported: { "dynamic-import": false },
  define: { "import.meta.url": "__minicode_import_meta_url", MINICODE_ENTRY: '"program"' },
  // Already wrapped as the function the launcher calls: it compiles the file's text as it is, so no second copy of
  // the bundle (the text plus a wrapper) is made, and the first lies dead in the heap until a full collection.
  banner: { js: "(function (exports, require, module, __filename, __dirname) {const __minicode_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: "\n})" },
  metafile: true
})
const bundle = Object.keys(program.metafile.outputs).find((f) => f.endsWith(".cjs"))
if (bundle === undefined) throw new Error("the program bundle is missing")
// The launcher runs it as a plain script: anything that needs the ESM loader would fail there.
if (/\bimport\(|\bimport\.meta\b/.test(readFileSync(bundle, "utf8"))) throw new Error(`${bundle} still uses import() or import.meta`)

// The repo map's worker, started by repo_map from beside dist/bin.js: src/bin.ts again, told it is the worker, so
// the bundle keeps only the worker's branch and loads only what a map needs.
await build({
  ...common,
  format: "cjs",
  entryPoints: { "repomap-worker": "src/bin.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  supported: { "dynamic-import": false },
  define: { "import.meta.url": "__minicode_import_meta_url", MINICODE_ENTRY: '"repomap-worker"' },
  banner: { js: "const __minicode_import_meta_url = require('node:url').pathToFileURL(__filename).href;" }
})

// grep's search worker (src/app/GrepWorker.ts), a worker thread started from beside the program or the library.
await build({ ...common, format: "cjs", entryPoints: { "grep-worker": "src/app/GrepWorker.ts" }, outdir: "dist", outExtension: { ".js": ".cjs" } })

// The executable: the launcher, told the bundle's (content-hashed) name, which keys the code cache.
await build({ ...common, format: "esm", entryPoints: { bin: "src/launcher.ts" }, outdir: "dist", define: { MINICODE_MAIN: JSON.stringify(path.basename(bundle)) } })
chmodSync("dist/bin.js", 0o755)

// The library's type declarations (dist/types, what package.json's `types` names), emitted by tsc from
// src/index.ts: for `npm pack`/`npm publish` (npm sets npm_command for the prepare script) or `--types`. Plain
// builds skip them (a minute of tsc; the bundles and the tests do not need them).
if (process.argv.includes("--types") || ["pack", "publish"].includes(process.env["npm_command"] ?? "")) {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" })
}
