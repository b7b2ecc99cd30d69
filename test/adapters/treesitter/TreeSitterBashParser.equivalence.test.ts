/**
 * The parser converts with as few native reads as it can (kinds learned per symbol id, `missing` read only on
 * zero-width nodes). This pins it to the plain conversion, one native read per property, on both corpora and on
 * broken input (errors, missing nodes).
 */
import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"
import type TreeSitter from "tree-sitter"
import * as TreeSitterBashParser from "../../../src/adapters/treesitter/TreeSitterBashParser.js"
import type { BashNode } from "../../../src/domain/bash/BashAst.js"
import { load } from "../../corpus/corpus.js"

const reference = (cursor: TreeSitter.TreeCursor, source: string): BashNode => {
  const type = cursor.nodeType
  const start = cursor.startIndex
  const end = cursor.endIndex
  const named = cursor.nodeIsNamed
  const missing = cursor.nodeIsMissing
  const fieldName = cursor.currentFieldName
  const children: Array<BashNode> = []
  if (cursor.gotoFirstChild()) {
    do children.push(reference(cursor, source))
    while (cursor.gotoNextSibling())
    cursor.gotoParent()
  }
  const text = source.slice(start, end)
  return fieldName !== undefined && fieldName !== null && fieldName !== ""
    ? { type, named, missing, field: fieldName, start, end, text, children }
    : { type, named, missing, start, end, text, children }
}

const broken = [
  'echo "open',
  "if true; then echo",
  "for x in; do",
  "echo $(",
  "a && ",
  "cat <<EOF\nbody",
  "case x in a) ;; esac )",
  "f() { echo",
  "echo ${x",
  "[[ -f x ",
  "echo é > ü; ls -la",
  "(( x = 1 + ))",
  "echo `ls",
  "arr=(1 2",
  ""
]

describe("TreeSitterBashParser conversion", () => {
  it("gives the same tree as one native read per property", () => {
    const require = createRequire(import.meta.url)
    const Parser: typeof TreeSitter = require("tree-sitter")
    const language: TreeSitter.Language = require("tree-sitter-bash")
    const parser = new Parser()
    parser.setLanguage(language)
    const parse = TreeSitterBashParser.loadParser()
    const sources = [...load("honest"), ...load("attacks"), ...broken]
    for (const source of sources) {
      const expected = reference(parser.parse(source).walk(), source)
      expect(parse(source)?.root, JSON.stringify(source)).toEqual(expected)
    }
  })
})

describe("TreeSitterBashParser recent trees", () => {
  it("gives the same tree for a repeated command and keeps working past its size", () => {
    const parse = TreeSitterBashParser.loadParser()
    const first = parse("git status")
    for (let i = 0; i < 600; i++) expect(parse(`echo ${i}`)?.root.children[0]?.type).toBe("command")
    expect(parse("git status")).toEqual(first)
    expect(parse("git status")).toBe(parse("git status"))
    expect(parse('echo "open')).toBeDefined()
  })
})
