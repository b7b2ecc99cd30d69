/**
 * The repo map: a compact outline of the workspace's important symbols (ranking in `Rank`, import edges in
 * `Imports`, the text in `Render`). Extraction here is the regex fallback (any language) and the lexical scan that
 * ranking runs on every file; a tree-sitter outline, where a grammar is installed, produces the same `Outline`. Pure.
 */

export interface SymbolLine {
  /** 1-based. */
  readonly line: number
  /** The declaration's first line, trimmed and shortened. */
  readonly text: string
  /** The name it declares, when known: the key references are matched by. */
  readonly name?: string | undefined
}

export interface Outline {
  readonly symbols: ReadonlyArray<SymbolLine>
  /** Import specifiers as written (`./math.js`, `.models`, `app.geometry`). */
  readonly imports: ReadonlyArray<string>
}

/** The lexical scan of a file that ranking needs: its regex outline plus the identifiers it mentions. */
export interface Scan extends Outline {
  /** The distinct identifiers in the file, space-separated (one string: cheap to keep for every file). */
  readonly refs: string
}

export type Language = "ts" | "py" | "go" | "rs" | "sh" | "java" | "cs" | "c" | "cpp" | "rb" | "php" | "generic"

const byExtension: Readonly<Record<string, Language>> = {
  ".ts": "ts", ".tsx": "ts", ".mts": "ts", ".cts": "ts", ".js": "ts", ".jsx": "ts", ".mjs": "ts", ".cjs": "ts",
  ".py": "py", ".pyi": "py", ".go": "go", ".rs": "rs", ".sh": "sh", ".bash": "sh",
  ".java": "java", ".cs": "cs", ".rb": "rb", ".php": "php",
  ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
  ".kt": "generic", ".kts": "generic", ".scala": "generic", ".swift": "generic",
  ".lua": "generic", ".ex": "generic", ".exs": "generic", ".dart": "generic", ".zig": "generic"
}

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot).toLowerCase()
}

/** The language of a source file, or undefined for anything the map does not outline. */
export const languageOf = (path: string): Language | undefined =>
  /\.d\.ts$|\.min\.js$/.test(path) ? undefined : byExtension[extensionOf(path)]

const maxSignature = 120
/** A declaration's first line as the map shows it: trimmed, without a trailing `{`, `:` or `=`, shortened. */
export const signature = (line: string): string => {
  const s = line.trim().replace(/\s*\{\s*$/, "").replace(/\s*[:=]\s*$/, "")
  return s.length > maxSignature ? `${s.slice(0, maxSignature)}…` : s
}

const javaLike = [
  /^\s*(?:(?:public|protected|internal|private|static|abstract|final|sealed|partial|readonly)\s+)*(?:class|interface|enum|record|struct)\s+\w+/,
  /^\s*(?:(?:public|protected|internal)\s+)(?:(?:static|final|abstract|override|virtual|async|synchronized|default|sealed|extern|unsafe|new)\s+)*(?:<[^>]*>\s*)?[\w<>[\],.?]+(?:\s+[\w<>[\],.?]+)?\s+\w+\s*\(/
]
/** A C or C++ function at the left margin (`static` ones are file-local), a type, a namespace. */
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

/** Words too common to rank by. */
export const keywords: ReadonlySet<string> = new Set(
  ("abstract and async await boolean break case catch class const continue def default delete double elif else enum export " +
    "extends false final finally float for from function func goto import impl implements include int interface let long " +
    "match module namespace new nil none null package private protected pub public require return self short sizeof " +
    "static struct super switch then this throw throws true try type typedef typeof undefined union unsigned use using var " +
    "void volatile while with yield char string object end elsif unless").split(" ")
)

/** The distinct identifiers of a text (three characters or more, keywords left out), space-separated. */
export const identifiers = (text: string): string => [...identifierSet(text)].join(" ")

/** The distinct identifiers of a text (three characters or more, keywords left out). */
export const identifierSet = (text: string): Set<string> => {
  const seen = new Set<string>()
  for (const m of text.matchAll(/[A-Za-z_$][\w$]{2,}/g)) {
    const word = m[0]
    if (!keywords.has(word)) seen.add(word)
  }
  return seen
}

/** The name a declaration line declares: the word after its keyword, or a C-like function's name. */
export const nameOf = (language: Language, line: string): string | undefined => {
  if (language === "c" || language === "cpp" || language === "java" || language === "cs") {
    const kind = /\b(?:class|interface|enum|record|struct|union|namespace)\s+([\w.]+)/.exec(line)
    if (kind?.[1] !== undefined && !/\(/.test(line.slice(0, kind.index))) return kind[1]
    // A C function's name is the last `name(` outside parentheses before its body (`CJSON_PUBLIC(cJSON *)
    // cJSON_Parse(const char *v)` declares cJSON_Parse); a Java or C# method's the first (after its return type).
    const head = line.replace(/\s*(?:\{|=>).*$/, "")
    let depth = 0
    let found: string | undefined
    for (let i = 0; i < head.length; i++) {
      const ch = head[i]
      if (ch === "(") {
        if (depth === 0) found = /([A-Za-z_~][\w]*)\s*$/.exec(head.slice(0, i))?.[1] ?? found
        if (found !== undefined && (language === "java" || language === "cs")) return found
        depth++
      } else if (ch === ")") depth = Math.max(0, depth - 1)
    }
    return found
  }
  const fn = /\bfunction\*?\s+&?([\w$]+)/.exec(line)
  if (fn?.[1] !== undefined) return fn[1]
  if (language === "go") return /^func\s+(?:\([^)]*\)\s*)?(\w+)|^type\s+(\w+)/.exec(line)?.slice(1).find((g) => g !== undefined)
  const m = /\b(?:function\*?|class|interface|type|enum|namespace|const|let|var|def|fn|struct|trait|mod|union|module|record|object|fun|func|static)\s+(?:self\.)?&?([\w$]+)/.exec(line)
  return m?.[1]
}

/** JavaScript's `\s` without `\n`, as the body of a character class. */
const blankNoNewline = "\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

/**
 * A rule written for one line (`^` its start, `$` its end) as the source of a pattern matched in the whole text at a
 * line's start: `\s` and every negated class leave `\n` out, `$` becomes "before `\n` or at the end" and `^` "after
 * `\n` or at the start", so no match reaches past its line and each line matches exactly as it would alone.
 */
export const atLineStart = (rule: RegExp): string => {
  const s = rule.source
  let out = ""
  let inClass = false
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] ?? ""
    if (ch === "\\") {
      const next = s[++i] ?? ""
      out += next === "s" ? (inClass ? blankNoNewline : `[${blankNoNewline}]`) : `\\${next}`
    } else if (inClass) {
      if (ch === "]") inClass = false
      out += ch
    } else if (ch === "[") {
      inClass = true
      if (s[i + 1] === "^") {
        out += "[^\\n"
        i++
      } else out += "["
    } else if (ch === "^") out += i === 0 ? "" : "(?<![^\\n])"
    else if (ch === "$") out += "(?![^\\n])"
    else out += ch
  }
  return out
}

/**
 * Each language's declaration rules as one sticky pattern tried once at each line's start, its first alternative
 * (group 1) a block comment's opening (`/*` after blanks), which no declaration rule matches.
 */
const lineRules: Readonly<Record<Language, RegExp>> = Object.fromEntries(
  (Object.keys(rules) as Array<Language>).map((language) => {
    const alternatives = rules[language].map((r) => `(?:${atLineStart(r)})`)
    const opening = language === "py" || language === "sh" || language === "rb" ? [] : [`([${blankNoNewline}]*\\/\\*)`]
    return [language, new RegExp([...opening, ...alternatives].join("|"), "y")]
  })
) as Record<Language, RegExp>
const commentOpening = new RegExp(`[${blankNoNewline}]*\\/\\*`, "y")

/**
 * How each import rule (in `importRules`' order) finds its matches, each way giving exactly `matchAll`'s matches:
 * "word" rules start with `\b` and the word, so a match starts where the word occurs; "line" rules start with
 * `^\s*` (multiline) and the word, so a match starts at the first line start of the blanks before an occurrence;
 * "all" rules run over the whole text (when it holds the word, if one is given).
 */
type Finder = readonly ["word" | "line" | "all", string]
const importFinders: Readonly<Record<Language, ReadonlyArray<Finder>>> = {
  ts: [["word", "from"], ["word", "import"], ["line", "import"], ["word", "require"]],
  py: [["line", "from"], ["line", "import"]],
  go: [["line", "import"], ["all", '"']],
  rs: [["all", "mod"], ["all", "use"]],
  sh: [["all", ""]],
  java: [["line", "import"]],
  cs: [["line", "using"]],
  c: [["line", "#"]],
  cpp: [["line", "#"]],
  rb: [["line", "require"]],
  php: [["all", ""], ["line", "use"]],
  generic: []
}
/** Each import rule as a sticky pattern tried where a match may start: the rule itself, its leading `^` dropped. */
const importSticky: Readonly<Record<string, ReadonlyArray<RegExp>>> = Object.fromEntries(
  Object.entries(importRules).map(([language, list]) => [language, list.map((r) => new RegExp(r.source.replace(/^\^/, ""), "y"))])
)

/** JavaScript's `\s`, and its line terminators (where a multiline `^` matches after). */
const isBlank = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
const isLineTerminator = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029

/** The matches of an import rule, in order, as `text.matchAll(rule)` gives them. */
const importMatches = (text: string, rule: RegExp, sticky: RegExp, [how, word]: Finder): Iterable<RegExpMatchArray> => {
  if (!text.includes(word)) return []
  if (how === "all") return text.matchAll(rule)
  const found: Array<RegExpMatchArray> = []
  let last = 0
  for (let q = text.indexOf(word); q !== -1; ) {
    let from = q
    if (how === "line") {
      // The blanks before the word, back to where the last match ended; the first line start among them.
      let w = q
      while (w > last && isBlank(text.charCodeAt(w - 1))) w--
      from = -1
      for (let p = w; p <= q; p++) {
        if (p === 0 || isLineTerminator(text.charCodeAt(p - 1))) {
          from = p
          break
        }
      }
    }
    if (from !== -1) {
      sticky.lastIndex = from
      const m = sticky.exec(text)
      if (m !== null) {
        found.push(m)
        last = sticky.lastIndex
        q = text.indexOf(word, last)
        continue
      }
    }
    q = text.indexOf(word, q + 1)
  }
  return found
}

/**
 * Declarations and imports by regular expressions: the fallback for every language. The text is walked line end to
 * line end (never split): a line in a block comment is passed over (up to the line holding the comment's `*\/`), a
 * line longer than 1,000 characters is not matched, and every other line is matched by its language's rules.
 */
export const extractRegex = (path: string, text: string): Outline => {
  const language = languageOf(path) ?? "generic"
  const symbols: Array<SymbolLine> = []
  declarationLines(language, text, (line, source) => symbols.push({ line, text: signature(source), name: nameOf(language, source) }))
  return { symbols, imports: importsOf(language, text) }
}

/** Hands `found` each declaration line of the text (1-based number, text), in order: `extractRegex`'s symbols. */
export const declarationLines = (language: Language, text: string, found: (line: number, source: string) => void): void => {
  const blockComments = language !== "py" && language !== "sh" && language !== "rb"
  const rule = lineRules[language]
  const length = text.length
  // The end of the open block comment: the index of its `*/` (then the line holding it closes the comment), or -1.
  let commentEnd = -2
  let line = 0
  for (let start = 0; start <= length; ) {
    line++
    let end = text.indexOf("\n", start)
    if (end === -1) end = length
    if (commentEnd !== -2) {
      if (commentEnd === -1) break
      if (end > commentEnd) commentEnd = -2
    } else if (end - start > 1000) {
      commentOpening.lastIndex = start
      if (blockComments && commentOpening.test(text) && !includesBetween(text, "*/", start, end)) commentEnd = text.indexOf("*/", end)
    } else {
      rule.lastIndex = start
      const m = rule.exec(text)
      if (m !== null) {
        if (blockComments && m[1] !== undefined) {
          if (!includesBetween(text, "*/", start, end)) commentEnd = text.indexOf("*/", end)
        } else {
          found(line, text.slice(start, end))
        }
      }
    }
    start = end + 1
  }
}

/** The import specifiers of the text, in rule order: `extractRegex`'s imports. */
export const importsOf = (language: Language, text: string): Array<string> => {
  const imports: Array<string> = []
  const finders = importFinders[language]
  const stickies = importSticky[language] ?? []
  for (const [k, rule] of importRules[language].entries()) {
    for (const m of importMatches(text, rule, stickies[k] ?? rule, finders[k] ?? ["all", ""])) {
      const spec = m[1]
      if (spec === undefined) continue
      // `from . import a, b` names modules; `from .m import a` names m.
      if (language === "py" && /^\.+$/.test(spec) && m[2] !== undefined) {
        for (const name of m[2].split(",")) if (name.trim() !== "") imports.push(`${spec}${name.trim()}`)
      } else if (language === "rb" && m[2] !== undefined) imports.push(spec === "require_relative" ? `./${m[2]}` : m[2])
      else imports.push(spec)
    }
  }
  return imports
}

/** Whether `text[start, end)` holds `needle`. */
const includesBetween = (text: string, needle: string, start: number, end: number): boolean => {
  const at = text.indexOf(needle, start)
  return at !== -1 && at + needle.length <= end
}

/** The scan ranking runs on every file: the regex outline and the identifiers. */
export const scan = (path: string, text: string): Scan => ({ ...extractRegex(path, text), refs: identifiers(text) })

/** cyrb53's two mixed 32-bit lanes over `text[start, end)` (UTF-16 code units), into `out`. */
export const hashLanes = (text: string, start: number, end: number, out: Uint32Array): void => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  out[0] = h1 >>> 0
  out[1] = h2 >>> 0
}

const lanes = new Uint32Array(2)

/** cyrb53: a fast 53-bit content hash (cache keys, not security), as hex plus the length. */
export const hash = (text: string): string => {
  hashLanes(text, 0, text.length, lanes)
  return `${(4294967296 * (2097151 & (lanes[1] ?? 0)) + (lanes[0] ?? 0)).toString(16)}-${text.length}`
}
