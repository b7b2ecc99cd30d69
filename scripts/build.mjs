// Bundles the CLI and the library with esbuild: one file each, so start-up does not walk thousands of modules.
// Native and heavy optional adapters stay external and load lazily.
import { build } from "esbuild"
import { chmodSync, rmSync } from "node:fs"

// The MCP SDK is bundled, not external: behind a dynamic import it becomes its own chunk (loaded only by the
// commands that use it), and one minified chunk loads in a third of the time of the SDK's ~80 ESM files.
const external = ["tree-sitter", "tree-sitter-bash", "tree-sitter-javascript", "tree-sitter-python", "tree-sitter-typescript", "better-sqlite3", "vscode-jsonrpc", "libpg-query", "pg", "undici", "ipaddr.js"]

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: process.env["MINICODE_BUILD_DEV"] !== "1",
  sourcemap: false,
  legalComments: "none",
  external,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning"
}

// Code splitting: adapters imported with import() (SQLite journal, tree-sitter guard, MCP SDK…) become chunks
// that load only when a command needs them.
// Start clean: stale chunks of earlier builds would otherwise pile up beside the new ones.
rmSync("dist", { recursive: true, force: true })
await build({ ...common, entryPoints: { bin: "src/bin.ts", index: "src/index.ts" }, outdir: "dist", splitting: true, chunkNames: "chunks/[name]-[hash]" })
chmodSync("dist/bin.js", 0o755)
