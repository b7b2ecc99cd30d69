/**
 * Outlines read off tree-sitter trees for Go, Rust, Java, C, C++, C#, Ruby and PHP: a small table per language
 * of the nodes that declare (and of those that contain further declarations: classes, impls, namespaces), a rule
 * for what the outside of a file sees (exported Go names, `pub` Rust items, non-`static` C functions, non-private
 * members), and where imports stand. Only the top levels and container bodies are visited, never the whole tree.
 */
import type TreeSitter from "tree-sitter"
import * as RepoMap from "../../domain/repomap/RepoMap.js"

type Node = TreeSitter.SyntaxNode

export type Language = "go" | "rust" | "java" | "c" | "cpp" | "c_sharp" | "ruby" | "php"

interface Spec {
  /** Nodes that declare a symbol, and whether their body holds members to list. */
  readonly declarations: Readonly<Record<string, "leaf" | "container">>
  /** Nodes looked through: preprocessor blocks, `extern "C"`, templates, export wrappers. */
  readonly transparent?: ReadonlySet<string>
  /** Whether a declaration is visible outside its file or type (`inType`: a member). */
  readonly visible: (node: Node, inType: Node | undefined) => boolean
  /** Import specifiers, from the top-level statements (and those of namespaces). */
  readonly imports: (statement: Node) => ReadonlyArray<string>
}

/** A declaration's signature: from its first token to its body or the end of that line. */
export const symbolOf = (text: string, node: Node, name: string | undefined): RepoMap.SymbolLine => {
  const first = node.children.find((c) => c.type !== "decorator" && c.type !== "comment" && c.type !== "attribute_item") ?? node
  const start = first.startIndex
  const lineEnd = text.indexOf("\n", start)
  const body = node.childForFieldName("body")
  const end = Math.min(lineEnd === -1 ? text.length : lineEnd, body !== null && body.startIndex > start ? body.startIndex : text.length)
  return { line: first.startPosition.row + 1, text: RepoMap.signature(text.slice(start, end)), name }
}

const named = (node: Node | null | undefined): string | undefined => {
  if (node === null || node === undefined) return undefined
  return node.childForFieldName("name")?.text
}

/** A C/C++ declarator's name: down the `declarator` fields to the identifier. */
const declaratorName = (node: Node | null): string | undefined => {
  let current = node
  for (let i = 0; current !== null && i < 8; i++) {
    if (/identifier$|^destructor_name$|^operator_name$/.test(current.type)) return current.text
    current = current.childForFieldName("declarator") ?? current.childForFieldName("name")
  }
  return undefined
}

const hasFunctionDeclarator = (node: Node | null): boolean => {
  let current = node
  for (let i = 0; current !== null && i < 8; i++) {
    if (current.type === "function_declarator") return true
    current = current.childForFieldName("declarator")
  }
  return false
}

const unquote = (node: Node | null | undefined): string | undefined => {
  if (node === null || node === undefined) return undefined
  const t = node.text
  return t.length >= 2 && /^["'<`]/.test(t) ? t.slice(1, -1) : t
}

const modifiersText = (node: Node) =>
  node.children
    .filter((c) => c.type === "modifiers" || c.type === "modifier" || c.type === "visibility_modifier" || c.type === "storage_class_specifier")
    .map((c) => c.text)
    .join(" ")

/** The name a declaration declares, per shape. */
const nameOf = (node: Node): string | undefined => {
  switch (node.type) {
    case "function_definition":
    case "declaration":
    case "field_declaration":
      return declaratorName(node.childForFieldName("declarator")) ?? named(node)
    case "type_definition":
      return declaratorName(node.childForFieldName("declarator"))
    case "type_declaration":
      return named(node.namedChildren.find((c) => c.type === "type_spec" || c.type === "type_alias"))
    case "impl_item":
      return undefined
    default:
      return named(node)
  }
}

const cFamily = (cpp: boolean): Spec => ({
  declarations: {
    function_definition: "leaf",
    declaration: "leaf",
    type_definition: "leaf",
    struct_specifier: cpp ? "container" : "leaf",
    enum_specifier: "leaf",
    union_specifier: "leaf",
    ...(cpp ? { class_specifier: "container", namespace_definition: "container", field_declaration: "leaf" } : {})
  },
  transparent: new Set(["preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification", "template_declaration", "declaration_list", "field_declaration_list"]),
  visible: (node) => {
    if (node.type === "declaration" || node.type === "field_declaration") {
      if (!hasFunctionDeclarator(node.childForFieldName("declarator"))) return false
    }
    if ((node.type === "struct_specifier" || node.type === "enum_specifier" || node.type === "union_specifier" || node.type === "class_specifier") && node.childForFieldName("body") === null) return false
    return !/\bstatic\b/.test(modifiersText(node)) || node.type === "field_declaration"
  },
  imports: (statement) => {
    if (statement.type !== "preproc_include") return []
    const path = statement.childForFieldName("path")
    return path !== null && path.type === "string_literal" ? [unquote(path) ?? ""].filter((s) => s !== "") : []
  }
})

const memberVisible = (node: Node, inType: Node | undefined) => {
  if (inType === undefined) return true
  if (/interface/.test(inType.type)) return true
  return /\b(?:public|protected|internal)\b/.test(modifiersText(node))
}

const specs: Readonly<Record<Language, Spec>> = {
  go: {
    declarations: { function_declaration: "leaf", method_declaration: "leaf", type_declaration: "leaf" },
    visible: (node) => /^[A-Z]/.test(nameOf(node) ?? ""),
    imports: (statement) =>
      statement.type !== "import_declaration"
        ? []
        : statement.namedChildren
            .flatMap((c) => (c.type === "import_spec_list" ? c.namedChildren : [c]))
            .filter((c) => c.type === "import_spec")
            .flatMap((spec) => unquote(spec.childForFieldName("path")) ?? [])
  },
  rust: {
    declarations: {
      function_item: "leaf", function_signature_item: "leaf", struct_item: "leaf", enum_item: "leaf", union_item: "leaf",
      type_item: "leaf", const_item: "leaf", static_item: "leaf", macro_definition: "leaf",
      trait_item: "container", impl_item: "container", mod_item: "container"
    },
    transparent: new Set(["declaration_list"]),
    visible: (node, inType) => {
      if (node.type === "impl_item" || node.type === "macro_definition") return true
      if (inType !== undefined && (inType.type === "trait_item" || inType.childForFieldName("trait") !== null)) return true
      return node.children.some((c) => c.type === "visibility_modifier")
    },
    imports: (statement) => {
      if (statement.type === "mod_item" && statement.childForFieldName("body") === null) return [named(statement) ?? ""].filter((s) => s !== "")
      if (statement.type !== "use_declaration") return []
      const arg = statement.childForFieldName("argument")?.text ?? ""
      const path = arg.replace(/::\{[\s\S]*$/, "").replace(/\s+as\s+\w+$/, "").replace(/::\*$/, "")
      return /^(?:crate|super|self)::/.test(path) ? [path] : []
    }
  },
  java: {
    declarations: {
      class_declaration: "container", interface_declaration: "container", enum_declaration: "container", record_declaration: "container",
      annotation_type_declaration: "container", method_declaration: "leaf", constructor_declaration: "leaf"
    },
    transparent: new Set(["class_body", "interface_body", "enum_body", "enum_body_declarations"]),
    visible: (node, inType) => !/\bprivate\b/.test(modifiersText(node)) && memberVisible(node, inType),
    imports: (statement) => {
      if (statement.type !== "import_declaration") return []
      const path = statement.namedChildren.find((c) => c.type === "scoped_identifier" || c.type === "identifier")?.text
      if (path === undefined) return []
      return [statement.namedChildren.some((c) => c.type === "asterisk") ? `${path}.*` : path]
    }
  },
  c: cFamily(false),
  cpp: cFamily(true),
  c_sharp: {
    declarations: {
      namespace_declaration: "container", file_scoped_namespace_declaration: "container", class_declaration: "container",
      struct_declaration: "container", interface_declaration: "container", enum_declaration: "leaf", record_declaration: "container",
      method_declaration: "leaf", constructor_declaration: "leaf", property_declaration: "leaf", delegate_declaration: "leaf"
    },
    transparent: new Set(["declaration_list"]),
    visible: (node, inType) => !/\bprivate\b/.test(modifiersText(node)) && (/namespace/.test(inType?.type ?? "namespace") || memberVisible(node, inType)),
    imports: (statement) => {
      if (statement.type !== "using_directive") return []
      const name = statement.namedChildren.find((c) => c.type === "qualified_name" || c.type === "identifier")
      return name === undefined || statement.namedChildren.some((c) => c.type === "name_equals") ? [] : [name.text]
    }
  },
  ruby: {
    declarations: { class: "container", module: "container", method: "leaf", singleton_method: "leaf" },
    transparent: new Set(["body_statement"]),
    visible: () => true,
    imports: (statement) => {
      if (statement.type !== "call") return []
      const method = statement.childForFieldName("method")?.text
      if (method !== "require" && method !== "require_relative") return []
      const arg = statement.childForFieldName("arguments")?.namedChildren[0]
      if (arg === undefined || arg.type !== "string") return []
      const spec = arg.namedChildren.find((c) => c.type === "string_content")?.text
      return spec === undefined ? [] : [method === "require_relative" ? `./${spec}` : spec]
    }
  },
  php: {
    declarations: {
      namespace_definition: "container", class_declaration: "container", interface_declaration: "container", trait_declaration: "container",
      enum_declaration: "container", function_definition: "leaf", method_declaration: "leaf"
    },
    transparent: new Set(["declaration_list", "compound_statement"]),
    visible: (node) => !/\bprivate\b/.test(node.children.filter((c) => c.type === "visibility_modifier").map((c) => c.text).join(" ")),
    imports: (statement) => {
      if (statement.type === "namespace_use_declaration") {
        return statement.namedChildren
          .flatMap((c) => (c.type === "namespace_use_group" ? c.namedChildren : [c]))
          .filter((c) => c.type === "namespace_use_clause")
          .flatMap((c) => c.namedChildren.find((n) => n.type === "qualified_name" || n.type === "name")?.text.replace(/^\\/, "") ?? [])
      }
      if (statement.type !== "expression_statement") return []
      const inner = statement.namedChildren[0]
      if (inner === undefined || !/^(?:require|include)(?:_once)?_expression$/.test(inner.type)) return []
      const arg = inner.namedChildren.find((c) => c.type === "string" || c.type === "encapsed_string" || c.type === "binary_expression")
      const literal = arg?.type === "binary_expression" ? arg.childForFieldName("right") : arg
      const spec = literal?.namedChildren.find((c) => c.type === "string_content" || c.type === "string_value")?.text ?? unquote(literal)
      return spec === undefined || spec === "" ? [] : [spec]
    }
  }
}

const maxDepth = 4

/** The outline of a parsed file in one of these languages. */
export const outline = (language: Language, root: Node, text: string): RepoMap.Outline => {
  const spec = specs[language]
  const symbols: Array<RepoMap.SymbolLine> = []
  const imports: Array<string> = []
  const visit = (nodes: ReadonlyArray<Node>, inType: Node | undefined, depth: number) => {
    for (const node of nodes) {
      if (depth <= 1 || inType?.type.includes("namespace") === true) imports.push(...spec.imports(node))
      if (spec.transparent?.has(node.type) === true) {
        visit(node.namedChildren, inType, depth)
        continue
      }
      const kind = spec.declarations[node.type]
      if (kind === undefined) continue
      // A member of a type is a member only if it stands in a type (a C++ field declaration elsewhere is a variable).
      if (node.type === "field_declaration" && inType === undefined) continue
      if (!spec.visible(node, inType)) continue
      symbols.push(symbolOf(text, node, nameOf(node)))
      if (kind === "container" && depth < maxDepth) {
        const body = node.childForFieldName("body")
        visit(body === null ? node.namedChildren : [body], node, depth + 1)
      }
    }
  }
  visit(root.namedChildren, undefined, 0)
  return { symbols, imports }
}
