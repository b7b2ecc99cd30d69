/**
 * The regex outline as it was extracted before the one-pattern-per-line scan, kept as the oracle of
 * `RepoMap.extractRegex` (RegexOutline.test.ts): the text split into lines, every rule of the language tried on each
 * line alone, the import rules run over the whole text. Not used by the program.
 */
import * as RepoMap from "../../../src/domain/repomap/RepoMap.js"

type Language = RepoMap.Language

// The rules as they were written before the one-pattern-per-line scan: the reference, not used by the program.
const javaLike = [
  /^\s*(?:(?:public|protected|internal|private|static|abstract|final|sealed|partial|readonly)\s+)*(?:class|interface|enum|record|struct)\s+\w+/,
  /^\s*(?:(?:public|protected|internal)\s+)(?:(?:static|final|abstract|override|virtual|async|synchronized|default|sealed|extern|unsafe|new)\s+)*(?:<[^>]*>\s*)?[\w<>[\],.?]+(?:\s+[\w<>[\],.?]+)?\s+\w+\s*\(/
]
const cLike = [
  /^(?!static\b|return\b|else\b|if\b|while\b|for\b|switch\b|do\b|typedef\b|#)[A-Za-z_][\w\s*&:<>,()]*?\b[A-Za-z_][\w:~]*\s*\([^;{}]*\)?\s*(?:const\s*)?(?:\{\s*)?$/,
  /^(?!static\b|return\b|typedef\b|#)[A-Za-z_][\w\s*&:<>,()]*?\b[A-Za-z_]\w*\s*\([^{}]*\)\s*;\s*$/,
  /^(?:typedef\s+)?(?:struct|enum|union|class)\s+\w+/,
  /^(?:namespace|template\s*<)/
]
const rules: Readonly<Record<Language, ReadonlyArray<RegExp>>> = {
  ts: [
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\*?\s+[\w$]+/,
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+[\w$]+/,
    /^(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace)\s+[\w$]+/,
    /^export\s+(?:declare\s+)?(?:const|let|var)\s+[\w$]+/,
    /^export\s+default\s+/
  ],
  py: [/^(?:async\s+)?def\s+\w+/, /^class\s+\w+/, /^ {4}(?:async\s+)?def\s+(?:__init__|[A-Za-z]\w*)\s*\(/],
  go: [/^func\s+(?:\([^)]*\)\s*)?[A-Z]\w*/, /^type\s+[A-Z]\w*/],
  rs: [/^\s*pub(?:\([\w:]+\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|const|static|mod|union)\s+\w+/, /^(?:impl|trait)\b/],
  sh: [/^(?:function\s+)?[\w-]+\s*\(\s*\)\s*\{?/, /^function\s+[\w-]+/],
  java: javaLike,
  cs: [...javaLike, /^\s*namespace\s+[\w.]+/],
  c: cLike,
  cpp: cLike,
  rb: [/^\s*(?:class|module)\s+[A-Z][\w:]*/, /^\s*def\s+(?:self\.)?[A-Za-z]\w*[?!=]?/],
  php: [
    /^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+\w+/,
    /^\s*(?:(?:public|protected|static|abstract|final)\s+)*function\s+&?[A-Za-z]\w*/
  ],
  generic: [
    /^\s*(?:(?:public|private|protected|internal|export|open|abstract|final|sealed|static|data|pub)\s+)*(?:class|interface|enum|struct|record|trait|object|module|protocol|extension|def|fun|func|function|fn|defmodule|defp?)\s+[\w.$]+/
  ]
}
const importRules: Readonly<Record<Language, ReadonlyArray<RegExp>>> = {
  ts: [/\bfrom\s+["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, /^\s*import\s+["']([^"']+)["']/gm, /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g],
  py: [/^\s*from\s+(\.*[\w.]*)\s+import\s+([\w, ]+)/gm, /^\s*import\s+([\w.]+)/gm],
  go: [/^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"/gm, /^\s+(?:[\w.]+\s+)?"([^"\s]+)"\s*$/gm],
  rs: [/^\s*(?:pub\s+)?mod\s+(\w+)\s*;/gm, /^\s*(?:pub\s+)?use\s+((?:crate|super|self)::[\w:]+)/gm],
  sh: [/^\s*(?:source|\.)\s+["']?([\w./-]+)["']?/gm],
  java: [/^\s*import\s+(?:static\s+)?([\w.]+)\s*;/gm],
  cs: [/^\s*using\s+(?:static\s+)?([\w.]+)\s*;/gm],
  c: [/^\s*#\s*include\s+"([^"]+)"/gm],
  cpp: [/^\s*#\s*include\s+"([^"]+)"/gm],
  rb: [/^\s*(require(?:_relative)?)\s*\(?\s*["']([^"']+)["']/gm],
  php: [/^\s*(?:require|include)(?:_once)?\s*\(?\s*(?:__DIR__\s*\.\s*)?["']([^"']+)["']/gm, /^\s*use\s+(?:function\s+|const\s+)?\\?([\w\\]+)/gm],
  generic: []
}

/** The extraction as it was: split into lines, every rule on every line. */
export const reference = (file: string, text: string): RepoMap.Outline => {
  const language = RepoMap.languageOf(file) ?? "generic"
  const symbols: Array<RepoMap.SymbolLine> = []
  const blockComments = language !== "py" && language !== "sh" && language !== "rb"
  let inBlockComment = false
  text.split("\n").forEach((line, i) => {
    if (blockComments) {
      if (inBlockComment) {
        if (line.includes("*/")) inBlockComment = false
        return
      }
      if (/^\s*\/\*/.test(line) && !line.includes("*/")) {
        inBlockComment = true
        return
      }
    }
    if (line.length > 1000) return
    if (rules[language].some((r) => r.test(line))) symbols.push({ line: i + 1, text: RepoMap.signature(line), name: RepoMap.nameOf(language, line) })
  })
  const imports: Array<string> = []
  for (const rule of importRules[language]) {
    for (const m of text.matchAll(rule)) {
      const spec = m[1]
      if (spec === undefined) continue
      if (language === "py" && /^\.+$/.test(spec) && m[2] !== undefined) {
        for (const name of m[2].split(",")) if (name.trim() !== "") imports.push(`${spec}${name.trim()}`)
      } else if (language === "rb" && m[2] !== undefined) imports.push(spec === "require_relative" ? `./${m[2]}` : m[2])
      else imports.push(spec)
    }
  }
  return { symbols, imports }
}

