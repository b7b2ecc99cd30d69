/**
 * The repo map's outliner over tree-sitter (node bindings, prebuilt grammars): TypeScript, TSX, JavaScript and
 * Python outlines read off the syntax tree here, Go, Rust, Java, C, C++, C#, Ruby and PHP in `OutlineLanguages`, so a declaration-looking word inside a string, a template or a comment
 * never becomes a symbol. It yields the domain's `Outline`, the shape the regex fallback yields: the same
 * declarations (plus class methods), with the same `signature` text, and the import specifiers for ranking.
 *
 * tree-sitter and each grammar are loaded on first use of that grammar, never at import time or at `make`. A file
 * it has no grammar for, a grammar that does not load, a parse that fails or a tree with syntax errors gives
 * `undefined`: the repo map then runs the regex fallback on that file.
 */
import { createRequire } from "node:module"
import { Effect, Option } from "effect"
import type TreeSitter from "tree-sitter"
import * as RepoMap from "../../domain/repomap/RepoMap.js"
import * as Languages from "./OutlineLanguages.js"

/** The name the repo map caches these outlines under. */
export const name = "tree-sitter"

export type Grammar = "typescript" | "tsx" | "javascript" | "python" | Languages.Language

const byExtension: Readonly<Record<string, Grammar>> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
  ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
  ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".cs": "c_sharp",
  ".rb": "ruby", ".php": "php"
}

/** The grammar for a path, by its extension; undefined for every other file. */
export const grammarOf = (path: string): Grammar | undefined => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? undefined : byExtension[base.slice(dot).toLowerCase()]
}

type Node = TreeSitter.SyntaxNode
type ParseSync = (text: string) => RepoMap.Outline | undefined

// ---------------------------------------------------------------------------------------------------------------
// Extraction: pure functions of the tree and the text it was parsed from.

/** A declaration's signature: from its first token (after any decorators) to its body or the end of that line. */
const symbol = (text: string, outer: Node, inner: Node = outer): RepoMap.SymbolLine => {
  const first = outer.children.find((c) => c.type !== "decorator" && c.type !== "comment") ?? outer
  const start = first.startIndex
  const lineEnd = text.indexOf("\n", start)
  const body = inner.childForFieldName("body")
  const end = Math.min(lineEnd === -1 ? text.length : lineEnd, body !== null && body.startIndex > start ? body.startIndex : text.length)
  const declarator = inner.namedChildren.find((c) => c.type === "variable_declarator")
  const name = (inner.childForFieldName("name") ?? declarator?.childForFieldName("name"))?.text
  return { line: first.startPosition.row + 1, text: RepoMap.signature(text.slice(start, end)), name }
}

const unquote = (node: Node | null): string | undefined =>
  node !== null && node.type === "string" && node.text.length >= 2 ? node.text.slice(1, -1) : undefined

/** Declarations a script shows wherever they stand at the top level, exported or not. */
const scriptDeclarations = new Set([
  "function_declaration", "generator_function_declaration", "function_signature", "class_declaration",
  "abstract_class_declaration", "interface_declaration", "type_alias_declaration", "enum_declaration",
  "internal_module", "module"
])
const classes = new Set(["class_declaration", "abstract_class_declaration", "class"])
const methods = new Set(["method_definition", "method_signature", "abstract_method_signature"])

const isPrivateMember = (member: Node) =>
  member.childForFieldName("name")?.type === "private_property_identifier" ||
  member.namedChildren.some((c) => c.type === "accessibility_modifier" && c.text === "private")

const scriptMembers = (text: string, declaration: Node): ReadonlyArray<RepoMap.SymbolLine> => {
  const body = classes.has(declaration.type) ? declaration.childForFieldName("body") : null
  return body === null ? [] : body.namedChildren.filter((m) => methods.has(m.type) && !isPrivateMember(m)).map((m) => symbol(text, m))
}

/** The symbols of one top-level statement: `outer` carries the line (`export`, `declare`), `declaration` the body. */
const scriptStatement = (text: string, outer: Node, declaration: Node, exported: boolean): ReadonlyArray<RepoMap.SymbolLine> => {
  switch (declaration.type) {
    case "export_statement": {
      const inner = declaration.childForFieldName("declaration")
      if (inner !== null) return scriptStatement(text, outer, inner, true)
      // `export default <expression>`; `export { a }` and re-exports declare nothing here.
      const value = declaration.childForFieldName("value")
      return value === null ? [] : [symbol(text, outer, value), ...scriptMembers(text, value)]
    }
    case "ambient_declaration": {
      const inner = declaration.namedChildren.find((c) => c.type !== "comment")
      return inner === undefined ? [] : scriptStatement(text, outer, inner, exported)
    }
    case "expression_statement": {
      // `namespace N {}` stands in an expression statement.
      const inner = declaration.namedChildren[0]
      return inner !== undefined && inner.type === "internal_module" ? scriptStatement(text, outer, inner, exported) : []
    }
    case "lexical_declaration":
    case "variable_declaration":
      return exported ? [symbol(text, outer, declaration)] : []
    default:
      return scriptDeclarations.has(declaration.type) ? [symbol(text, outer, declaration), ...scriptMembers(text, declaration)] : []
  }
}

/** `import("x")` and `require("x")` anywhere: a query, run in the native library, instead of a walk of every call. */
const dynamicImportsQuery = `
(call_expression function: (import) arguments: (arguments . (string) @spec .))
(call_expression function: (identifier) @callee arguments: (arguments . (string) @spec .) (#eq? @callee "require"))
`
const pythonImportsQuery = "[(import_statement) (import_from_statement)] @import"

const scriptImports = (root: Node, dynamic: TreeSitter.Query): ReadonlyArray<string> => {
  const specs: Array<{ readonly at: number; readonly spec: string }> = []
  const add = (node: Node | null) => {
    const spec = unquote(node)
    if (node !== null && spec !== undefined && spec !== "") specs.push({ at: node.startIndex, spec })
  }
  for (const statement of root.namedChildren) {
    // `import … from "x"`, `import "x"`, `export … from "x"`, `import x = require("x")`.
    if (statement.type === "import_statement" || statement.type === "export_statement") {
      add(statement.childForFieldName("source"))
      for (const c of statement.namedChildren) if (c.type === "import_require_clause") add(c.childForFieldName("source"))
    }
  }
  for (const capture of dynamic.captures(root)) if (capture.name === "spec") add(capture.node)
  return specs.sort((a, b) => a.at - b.at).map((s) => s.spec)
}

const outlineScript = (query: TreeSitter.Query) => (root: Node, text: string): RepoMap.Outline => ({
  symbols: root.namedChildren.flatMap((statement) => scriptStatement(text, statement, statement, false)),
  imports: scriptImports(root, query)
})

/** A definition, looking through its decorators. */
const pythonDefinition = (node: Node): Node | undefined => {
  const definition = node.type === "decorated_definition" ? node.childForFieldName("definition") : node
  return definition !== null && (definition.type === "function_definition" || definition.type === "class_definition") ? definition : undefined
}

/** Methods a caller uses: `__init__` and names that do not start with `_`, as the regex fallback shows them. */
const isPublicMethod = (definition: Node) => /^(?:__init__|[A-Za-z]\w*)$/.test(definition.childForFieldName("name")?.text ?? "")

const pythonSymbols = (root: Node, text: string): ReadonlyArray<RepoMap.SymbolLine> =>
  root.namedChildren.flatMap((statement) => {
    const definition = pythonDefinition(statement)
    if (definition === undefined) return []
    const members =
      definition.type === "class_definition"
        ? (definition.childForFieldName("body")?.namedChildren ?? [])
            .map(pythonDefinition)
            .filter((m): m is Node => m !== undefined && m.type === "function_definition" && isPublicMethod(m))
            .map((m) => symbol(text, m))
        : []
    return [symbol(text, definition), ...members]
  })

const dotted = (node: Node): string | undefined => {
  const target = node.type === "aliased_import" ? node.childForFieldName("name") : node
  return target !== null && target.type === "dotted_name" ? target.text.replace(/\s+/g, "") : undefined
}

/** Module specifiers as the domain resolves them: `a.b`, `.m`, and `.name` for each name of `from . import name`. */
const pythonImports = (root: Node, query: TreeSitter.Query): ReadonlyArray<string> =>
  query.captures(root).flatMap(({ node: statement }) => {
    const names = statement.childrenForFieldName("name").flatMap((n) => dotted(n) ?? [])
    if (statement.type === "import_statement") return names
    const module = statement.childForFieldName("module_name")
    if (module === null) return []
    const spec = module.text.replace(/\s+/g, "")
    // `from . import a, b` names modules; `from . import *` the package itself.
    return /^\.+$/.test(spec) && names.length > 0 ? names.map((n) => `${spec}${n}`) : [spec]
  })

const outlinePython = (query: TreeSitter.Query) => (root: Node, text: string): RepoMap.Outline => ({
  symbols: pythonSymbols(root, text),
  imports: pythonImports(root, query)
})

// ---------------------------------------------------------------------------------------------------------------
// Loading.

const isLanguage = (value: unknown): value is TreeSitter.Language =>
  typeof value === "object" && value !== null && "language" in value && "nodeTypeInfo" in value

const isParserClass = (value: unknown): value is typeof TreeSitter => typeof value === "function"

/** `require("tree-sitter-typescript")` holds two grammars. */
const typescriptGrammar = (module: unknown, grammar: "typescript" | "tsx"): unknown =>
  typeof module !== "object" || module === null
    ? undefined
    : grammar === "typescript"
      ? "typescript" in module ? module.typescript : undefined
      : "tsx" in module ? module.tsx : undefined

/** A parse never blocks the map for long: past this the file is outlined by the fallback. */
const timeoutMicros = 2_000_000

const packages: Readonly<Record<Languages.Language | "javascript" | "python", string>> = {
  javascript: "tree-sitter-javascript", python: "tree-sitter-python", go: "tree-sitter-go", rust: "tree-sitter-rust",
  java: "tree-sitter-java", c: "tree-sitter-c", cpp: "tree-sitter-cpp", c_sharp: "tree-sitter-c-sharp",
  ruby: "tree-sitter-ruby", php: "tree-sitter-php"
}

/** A grammar's language object. C# ships as ESM with top-level await, so its prebuilt binding is loaded directly. */
const languageModule = (require: NodeJS.Require, grammar: Grammar): unknown => {
  if (grammar === "typescript" || grammar === "tsx") return typescriptGrammar(require("tree-sitter-typescript"), grammar)
  if (grammar === "c_sharp") {
    const root = require.resolve("tree-sitter-c-sharp").replace(/\/bindings\/node\/index\.js$/, "")
    const nodeGypBuild: unknown = createRequire(`${root}/package.json`)("node-gyp-build")
    if (typeof nodeGypBuild !== "function") return undefined
    const binding: unknown = nodeGypBuild(root)
    if (typeof binding !== "object" || binding === null) return undefined
    return Object.assign(binding, { nodeTypeInfo: require(`${root}/src/node-types.json`) })
  }
  const module: unknown = require(packages[grammar])
  return grammar === "php" ? (typeof module === "object" && module !== null && "php" in module ? module.php : undefined) : module
}

const loadGrammar = (require: NodeJS.Require, grammar: Grammar): ParseSync => {
  const ParserClass: unknown = require("tree-sitter")
  const language = languageModule(require, grammar)
  if (!isParserClass(ParserClass) || !isLanguage(language)) throw new Error(`tree-sitter grammar ${grammar} did not load`)
  const parser = new ParserClass()
  parser.setLanguage(language)
  parser.setTimeoutMicros(timeoutMicros)
  const extract =
    grammar === "python"
      ? outlinePython(new ParserClass.Query(language, pythonImportsQuery))
      : grammar === "typescript" || grammar === "tsx" || grammar === "javascript"
        ? outlineScript(new ParserClass.Query(language, dynamicImportsQuery))
        : (root: Node, text: string) => Languages.outline(grammar, root, text)
  return (text) => {
    // The tree is not kept: its outline is copied out as plain data, and the native tree goes with the last
    // reference to it (the node binding frees trees when they are collected; it has no explicit delete).
    const root = parser.parse(text).rootNode
    // A tree with syntax errors may misplace declarations: the regex does no worse on such a file.
    return root.hasError ? undefined : extract(root, text)
  }
}

/**
 * The outliner: `(path, text) => Effect<Outline | undefined>`, the shape `RepoMap.make` takes as `outliner`. Each
 * grammar (and tree-sitter itself) is loaded the first time a file needs it, once; one that fails to load stays
 * unloaded and its files go to the fallback.
 */
export const make = Effect.gen(function* () {
  const require = createRequire(import.meta.url)
  const load = (grammar: Grammar) =>
    Effect.try(() => loadGrammar(require, grammar)).pipe(Effect.option, Effect.map(Option.getOrUndefined))
  const grammars: ReadonlyArray<Grammar> = ["typescript", "tsx", "javascript", "python", "go", "rust", "java", "c", "cpp", "c_sharp", "ruby", "php"]
  const parsers = new Map<Grammar, Effect.Effect<ParseSync | undefined>>()
  for (const grammar of grammars) parsers.set(grammar, yield* Effect.cached(load(grammar)))
  return (path: string, text: string): Effect.Effect<RepoMap.Outline | undefined> => {
    const grammar = grammarOf(path)
    if (grammar === undefined) return Effect.succeed(undefined)
    return Effect.flatMap(parsers.get(grammar) ?? Effect.succeed(undefined), (parse) =>
      parse === undefined
        ? Effect.succeed(undefined)
        : // A parse that throws (a timeout, a binding failure) leaves the file to the fallback.
          Effect.try(() => parse(text)).pipe(Effect.orElseSucceed(() => undefined))
    )
  }
})
