// Bundles the CLI and the library with esbuild: one file each, so start-up does not walk thousands of modules.
// Native and heavy optional adapters stay external and load lazily.
import { build } from "esbuild"
import { chmodSync } from "node:fs"

const external = ["tree-sitter", "tree-sitter-bash", "better-sqlite3", "@modelcontextprotocol/sdk", "vscode-jsonrpc", "libpg-query", "pg", "@effect/sql-sqlite-node", "@effect/sql", "undici", "ipaddr.js"]

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  sourcemap: false,
  legalComments: "none",
  external,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning"
}

await build({ ...common, entryPoints: ["src/bin.ts"], outfile: "dist/bin.js" })
await build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/index.js" })
chmodSync("dist/bin.js", 0o755)
