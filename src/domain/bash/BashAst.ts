/**
 * A parsed shell command as plain data: the bash guard judges this tree, never the raw string. It mirrors
 * tree-sitter-bash's concrete syntax tree (node kinds, field names, anonymous tokens such as `>` or `&&`) but is a
 * plain serialisable value, so the domain never imports a parser and tests can build or store trees.
 */

export interface BashNode {
  /** The grammar's node kind (`command`, `word`, `file_redirect`…); `ERROR` for a syntax error. */
  readonly type: string
  /** Named nodes are grammar rules; anonymous ones are tokens like `|`, `&&`, `>>`. */
  readonly named: boolean
  /** The parser inserted this node to recover from an error: the text lacks it. */
  readonly missing: boolean
  /** The field this node fills in its parent (`name`, `argument`, `redirect`, `destination`…). */
  readonly field?: string
  /** Offsets in UTF-16 code units into the source (so `source.slice(start, end) === text`). */
  readonly start: number
  readonly end: number
  readonly text: string
  readonly children: ReadonlyArray<BashNode>
}

export interface BashAst {
  readonly source: string
  readonly root: BashNode
}

export const namedChildren = (node: BashNode): ReadonlyArray<BashNode> => node.children.filter((c) => c.named)

export const field = (node: BashNode, name: string): BashNode | undefined => node.children.find((c) => c.field === name)

export const fields = (node: BashNode, name: string): ReadonlyArray<BashNode> =>
  node.children.filter((c) => c.field === name)

/** The first error or missing node in the tree, depth first. */
export const firstError = (node: BashNode): BashNode | undefined => {
  if (node.type === "ERROR" || node.missing) return node
  for (const child of node.children) {
    const found = firstError(child)
    if (found !== undefined) return found
  }
  return undefined
}
