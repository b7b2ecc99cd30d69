/**
 * The bash guard's parser: tree-sitter-bash through its node bindings (prebuilt), converted into the domain's
 * plain `BashAst`, then judged by the pure `BashPolicy`. The native module is loaded on first use only, so a
 * kernel start that never sees a bash call does not pay for it.
 */
import { createRequire } from "node:module"
import { Effect, Layer } from "effect"
import type TreeSitter from "tree-sitter"
import type { BashAst, BashNode } from "../domain/BashAst.js"
import * as BashPolicy from "../domain/BashPolicy.js"
import { BashGuard, type GuardRequest } from "../ports/BashGuard.js"

/** Parses synchronously; `undefined` when the parser gave up (time out, too deep) — callers deny. */
export type ParseSync = (source: string) => BashAst | undefined

const isLanguage = (value: unknown): value is TreeSitter.Language =>
  typeof value === "object" && value !== null && "nodeTypeInfo" in value

const isParserClass = (value: unknown): value is typeof TreeSitter => typeof value === "function"

/** Deep trees are converted with recursion; beyond this depth the parse counts as failed. */
const maxDepth = 2_000

const convert = (cursor: TreeSitter.TreeCursor, source: string, depth: number): BashNode => {
  const type = cursor.nodeType
  const start = cursor.startIndex
  const end = cursor.endIndex
  const named = cursor.nodeIsNamed
  const missing = cursor.nodeIsMissing
  const fieldName = cursor.currentFieldName
  const children: Array<BashNode> = []
  if (depth > maxDepth) throw new RangeError("tree too deep")
  if (cursor.gotoFirstChild()) {
    do children.push(convert(cursor, source, depth + 1))
    while (cursor.gotoNextSibling())
    cursor.gotoParent()
  }
  const text = source.slice(start, end)
  return fieldName !== undefined && fieldName !== null && fieldName !== ""
    ? { type, named, missing, field: fieldName, start, end, text, children }
    : { type, named, missing, start, end, text, children }
}

/**
 * Loads tree-sitter and the bash grammar and returns a synchronous parse function holding its own parser. Call it
 * once (the layer does) and keep the function.
 */
export const loadParser = (): ParseSync => {
  const require = createRequire(import.meta.url)
  const ParserClass: unknown = require("tree-sitter")
  const language: unknown = require("tree-sitter-bash")
  if (!isParserClass(ParserClass) || !isLanguage(language)) throw new Error("tree-sitter-bash did not load")
  const parser = new ParserClass()
  parser.setLanguage(language)
  parser.setTimeoutMicros(200_000)
  return (source) => {
    try {
      const tree = parser.parse(source)
      return { source, root: convert(tree.walk(), source, 0) }
    } catch {
      // A timeout, an over-deep tree or a binding failure: no tree, and the guard fails closed on that.
      return undefined
    }
  }
}

export const make = Effect.sync(() => {
  const parse = loadParser()
  const judge = (request: GuardRequest) =>
    Effect.sync(() =>
      BashPolicy.judgeCommand(request.command, {
        jail: request.jail,
        cwd: request.cwd,
        allowlist: request.allowlist,
        requireAllowlist: request.requireAllowlist,
        network: request.network,
        reparse: parse
      })
    )
  return BashGuard.of({ judge })
})

/** Builds the parser when the layer is built, never at import time. */
export const layer = Layer.effect(BashGuard, make)
