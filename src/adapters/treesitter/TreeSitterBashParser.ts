/**
 * The bash guard's parser: tree-sitter-bash through its node bindings (prebuilt), converted into the domain's
 * plain `BashAst` (the Guard stage judges it with the pure `Judge`). The native module is loaded on first use only, so a
 * kernel start that never sees a bash call does not pay for it.
 */
import { createRequire } from "node:module"
import { Effect, Layer } from "effect"
import type TreeSitter from "tree-sitter"
import type { BashAst, BashNode } from "../../domain/bash/BashAst.js"
import { BashParseError, BashParser } from "../../ports/BashParser.js"

/** Parses synchronously; `undefined` when the parser gave up (time out, too deep) — callers deny. */
export type ParseSync = (source: string) => BashAst | undefined

const isLanguage = (value: unknown): value is TreeSitter.Language =>
  typeof value === "object" && value !== null && "nodeTypeInfo" in value

const isParserClass = (value: unknown): value is typeof TreeSitter => typeof value === "function"

/** Deep trees are converted with recursion; beyond this depth the parse counts as failed. */
const maxDepth = 2_000

/** The most UTF-16 units the binding reads from the source at once (longer commands are read in chunks). */
const inputBufferMax = 32 * 1024

/** How many recent trees the parser keeps, and the longest source it keeps one for. */
const cachedTrees = 256
const cachedSourceMax = 4 * 1024

/** A node kind as the grammar numbers it: its name and whether it is named are fixed per symbol id. */
interface Kind {
  readonly type: string
  readonly named: boolean
}

/**
 * Converts the tree under a cursor with as few native calls as it can: per node its symbol id, field id and two
 * offsets (plus the moves). The kind's name and named-ness are learned once per symbol id and the field's name once
 * per field id, into tables the caller owns (one per loaded grammar); `missing` is read only for zero-width nodes,
 * the only ones that can be missing.
 */
const makeConvert = () => {
  const kinds: Array<Kind | undefined> = []
  const fieldNames: Array<string | undefined> = []
  const kindOf = (cursor: TreeSitter.TreeCursor): Kind => {
    const id = cursor.nodeTypeId
    const known = kinds[id]
    if (known !== undefined) return known
    const kind: Kind = { type: cursor.nodeType, named: cursor.nodeIsNamed }
    kinds[id] = kind
    return kind
  }
  const fieldOf = (cursor: TreeSitter.TreeCursor): string | undefined => {
    // the binding gives `undefined` (typed as number) when the node fills no field
    const id: number | undefined = cursor.currentFieldId
    if (id === undefined || id === 0) return undefined
    const known = fieldNames[id]
    if (known !== undefined) return known
    const name = cursor.currentFieldName
    if (name === undefined || name === null || name === "") return undefined
    fieldNames[id] = name
    return name
  }
  const convert = (cursor: TreeSitter.TreeCursor, source: string, depth: number): BashNode => {
    if (depth > maxDepth) throw new RangeError("tree too deep")
    const { type, named } = kindOf(cursor)
    const start = cursor.startIndex
    const end = cursor.endIndex
    const missing = start === end && cursor.nodeIsMissing
    const fieldName = fieldOf(cursor)
    const children: Array<BashNode> = []
    if (cursor.gotoFirstChild()) {
      do children.push(convert(cursor, source, depth + 1))
      while (cursor.gotoNextSibling())
      cursor.gotoParent()
    }
    const text = source.slice(start, end)
    return fieldName !== undefined
      ? { type, named, missing, field: fieldName, start, end, text, children }
      : { type, named, missing, start, end, text, children }
  }
  return convert
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
  const convert = makeConvert()
  // The trees of recent commands, by source text, least recently used first: agents repeat commands (`npm test`,
  // `git status`), and a tree is plain immutable data. Failed parses are not kept (a timeout may not recur).
  const recent = new Map<string, BashAst>()
  return (source) => {
    const known = recent.get(source)
    if (known !== undefined) {
      recent.delete(source)
      recent.set(source, known)
      return known
    }
    let ast: BashAst
    try {
      // the binding allocates an input buffer of `bufferSize` UTF-16 units per parse (32 Ki by default)
      const tree = parser.parse(source, undefined, { bufferSize: Math.min(source.length + 1, inputBufferMax) })
      ast = { source, root: convert(tree.walk(), source, 0) }
    } catch {
      // A timeout, an over-deep tree or a binding failure: no tree, and the guard fails closed on that.
      return undefined
    }
    if (source.length <= cachedSourceMax) {
      if (recent.size >= cachedTrees) {
        const oldest = recent.keys().next()
        if (oldest.done !== true) recent.delete(oldest.value)
      }
      recent.set(source, ast)
    }
    return ast
  }
}

/** The BashParser port over the loader: a tree, or `BashParseError` when the parser gave none. */
export const makeParser = Effect.sync(() => {
  const parseSync = loadParser()
  return BashParser.of({
    parse: (command) =>
      Effect.suspend(() => {
        const ast = parseSync(command)
        return ast === undefined ? Effect.fail(new BashParseError({ reason: "no-tree" })) : Effect.succeed(ast)
      })
  })
})

export const parserLayer = Layer.effect(BashParser, makeParser)
