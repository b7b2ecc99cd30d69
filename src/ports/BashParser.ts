import { Context, type Effect, Schema } from "effect"
import type { BashAst } from "../domain/bash/BashAst.js"

/**
 * The parser gave no tree: `no-tree` (it timed out, the tree was too deep, the binding failed) for this text, or
 * `unavailable` (no parser is installed in this build) for every text. The guard fails closed on both.
 */
export class BashParseError extends Schema.TaggedError<BashParseError>()("BashParseError", {
  reason: Schema.Literal("no-tree", "unavailable")
}) {
  override get message() {
    return this.reason === "unavailable"
      ? "the bash parser is not installed, so no command can be judged safe"
      : "the command could not be parsed, so it cannot be judged safe"
  }
}

/**
 * The bash guard's parser: a command string to the domain's plain `BashAst`, nothing more (judging is the
 * domain's). A syntax error still gives a tree, with `ERROR` or missing nodes in it; only "no tree at all" fails.
 */
export interface BashParserShape {
  readonly parse: (command: string) => Effect.Effect<BashAst, BashParseError>
}

export class BashParser extends Context.Tag("minicode/BashParser")<BashParser, BashParserShape>() {}
