/** The guard as the pure tests use it: the real tree-sitter parser, a workspace at /work/ws, a home at /home/dev. */
import { Effect } from "effect"
import { loadParser } from "../../src/adapters/treesitter/TreeSitterBashParser.js"
import * as Judge from "../../src/domain/bash/Judge.js"

export const parse = loadParser()

export const guardContext: Judge.GuardContext = {
  jail: { root: "/work/ws", home: "/home/dev", unrestricted: false },
  cwd: "/work/ws",
  allowlist: [],
  requireAllowlist: false,
  network: true
}

/** The judge's rounds over the real parser, run synchronously: a bug in the judge throws here (no deny net). */
export const judgeSync = (command: string, ctx: Judge.GuardContext = guardContext): Judge.GuardResult =>
  Effect.runSync(Judge.judgeRounds(command, ctx, (source) => Effect.sync(() => parse(source))))
