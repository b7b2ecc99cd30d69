/** The guard as the pure tests use it: the real tree-sitter parser, a workspace at /work/ws, a home at /home/dev. */
import { loadParser } from "../../src/adapters/treesitter/TreeSitterBashParser.js"
import type * as BashPolicy from "../../src/domain/bash/BashPolicy.js"

export const parse = loadParser()

export const guardContext: BashPolicy.GuardContext = {
  jail: { root: "/work/ws", home: "/home/dev", unrestricted: false },
  cwd: "/work/ws",
  allowlist: [],
  requireAllowlist: false,
  network: true,
  reparse: parse
}
