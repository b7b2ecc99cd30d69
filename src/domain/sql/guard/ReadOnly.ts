/** The SQL guard's read-only family: data-modifying keywords, EXPLAIN, PRAGMA and statement heads. Pure. */
import {
  anywhereKeywords,
  type KeywordRule,
  readPragmasBare,
  readPragmasWithArgument,
  reachDescription,
  statementKeywords
} from "../SqlCatalog.js"
import type { SqlDialect, Token } from "../SqlLexer.js"
import { deny, type Denial, isNameToken, isOp, isWord, kindAt, wordAt } from "./Tokens.js"

// ---------------------------------------------------------------------------------------------------------------
// Read-only mode

export const queryHeads: ReadonlySet<string> = new Set(["SELECT", "WITH", "VALUES", "TABLE"])
export const falseValues: ReadonlySet<string> = new Set(["FALSE", "OFF", "0", "false", "off", "no", "NO"])
/** Words that may follow a column name right after `(`: `(comment IS NULL)`, `(start AND …)`. */
export const expressionContinuations: ReadonlySet<string> = new Set([
  "IS", "AS", "IN", "NOT", "LIKE", "ILIKE", "BETWEEN", "AND", "OR", "ASC", "DESC", "COLLATE", "FILTER", "OVER",
  "NULLS", "ESCAPE", "SIMILAR", "REGEXP", "RLIKE", "GLOB", "MATCH", "DIV", "MOD", "XOR", "ISNULL", "NOTNULL"
])
export const stackable: ReadonlySet<string> = new Set(["sql.write", "sql.ddl", "sql.lock", "sql.transaction", "sql.session"])

export const keywordReason = (rule: KeywordRule, w: string): string => {
  switch (rule) {
    case "sql.write":
      return `${w} can modify data or run statements; the connection is read-only`
    case "sql.ddl":
      return `${w} changes the schema or maintains tables; the connection is read-only`
    case "sql.lock":
      return `${w} takes locks; the connection is read-only`
    case "sql.transaction":
      return `${w} controls transactions; the connection is read-only`
    case "sql.session":
      return `${w} changes the session; the connection is read-only`
    case "sql.privilege":
      return `${w} ${reachDescription.privilege}`
  }
}

/** Whether the reserved word at `k` is used as a name or a string function rather than as a keyword. */
export const usedAsName = (ts: ReadonlyArray<Token>, k: number, head: string | undefined): boolean => {
  const w = wordAt(ts, k)
  const before = ts[k - 2]
  if (kindAt(ts, k - 1) === "dot" && isNameToken(before)) return true
  if (kindAt(ts, k + 1) === "dot" && (isNameToken(ts[k + 2]) || isOp(ts, k + 2, "*"))) return true
  if ((w === "REPLACE" || w === "INSERT" || w === "TRUNCATE") && kindAt(ts, k + 1) === "lparen") return true
  return k === 1 && w === "CREATE" && head === "SHOW"
}

/** Data-changing words an EXPLAIN without ANALYZE may name: it plans the statement and runs nothing. */
const plannedWords: ReadonlySet<string> = new Set(["INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "UPSERT", "INTO"])

/** Statements an EXPLAIN without ANALYZE may plan in a read (`EXPLAIN UPDATE …`, `EXPLAIN QUERY PLAN DELETE …`). */
const plannedTargets: ReadonlySet<string> = new Set(["INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE"])

/**
 * With `planOnly` (the statement is an EXPLAIN without ANALYZE: `planOnlyExplain`) the data-changing words of the
 * planned statement are no reason to refuse; everything else is judged as in any read.
 */
export const readOnlyTokens = (ts: ReadonlyArray<Token>, planOnly = false): Denial | undefined => {
  const head = wordAt(ts, 0)
  for (let k = 0; k < ts.length; k++) {
    const w = wordAt(ts, k)
    if (w === undefined) continue
    const next = wordAt(ts, k + 1)
    if (w === "FOR" && (next === "UPDATE" || next === "SHARE" || next === "NO" || next === "KEY")) {
      return deny("sql.lock", `FOR ${next === "NO" ? "NO KEY UPDATE" : next === "KEY" ? "KEY SHARE" : next} locks rows; the connection is read-only`)
    }
    if (w === "LOCK" && next === "IN") return deny("sql.lock", "LOCK IN SHARE MODE locks rows; the connection is read-only")
    if (w === "COMMENT" && next === "ON") return deny("sql.ddl", keywordReason("sql.ddl", "COMMENT ON"))
    if (w === "SECURITY" && next === "LABEL") return deny("sql.ddl", keywordReason("sql.ddl", "SECURITY LABEL"))
    const anywhere = anywhereKeywords.get(w)
    if (anywhere !== undefined && !usedAsName(ts, k, head) && !(planOnly && plannedWords.has(w))) {
      return deny(anywhere, w === "INTO"
        ? "SELECT … INTO creates a table, writes a file or sets variables; the connection is read-only"
        : keywordReason(anywhere, w))
    }
    const verb = statementKeywords.get(w)
    const explainOption = k === 2 && head === "EXPLAIN"
    if (verb !== undefined && k > 0 && kindAt(ts, k - 1) === "lparen" && !explainOption) {
      const following = ts[k + 1]
      const continues = following === undefined || following.kind === "rparen" || following.kind === "comma" ||
        following.kind === "op" || following.kind === "dot" ||
        (following.kind === "word" && expressionContinuations.has(following.value))
      if (!continues) return deny(verb, keywordReason(verb, w))
    }
  }
  return undefined
}

export const explain = (ts: ReadonlyArray<Token>, dialect: SqlDialect): Denial | undefined => explained(ts, dialect).denial

/**
 * Whether `ts` is an EXPLAIN without ANALYZE of a data change: it shows the plan, runs nothing (issue 43). PostgreSQL
 * and SQLite only: MariaDB refuses `EXPLAIN UPDATE` inside the read-only transaction a read runs in.
 */
export const planOnlyExplain = (ts: ReadonlyArray<Token>, dialect: SqlDialect): boolean =>
  dialect !== "mysql" && wordAt(ts, 0) === "EXPLAIN" && explained(ts, dialect).planned

const explained = (ts: ReadonlyArray<Token>, dialect: SqlDialect): { readonly denial?: Denial; readonly planned: boolean } => {
  const found = explainOf(ts, dialect)
  return found === "planned" ? { planned: true } : found === undefined ? { planned: false } : { denial: found, planned: false }
}

const explainOf = (ts: ReadonlyArray<Token>, dialect: SqlDialect): Denial | "planned" | undefined => {
  let k = 1
  if (kindAt(ts, k) === "lparen") {
    // PostgreSQL option list: (ANALYZE, VERBOSE true, FORMAT JSON)
    let depth = 0
    let option: Array<Token> = []
    const analyzes = (o: ReadonlyArray<Token>): boolean => {
      const name = wordAt(o, 0)
      if (name !== "ANALYZE" && name !== "ANALYSE") return false
      const value = o[1]
      return !(o.length === 2 && value !== undefined && falseValues.has(value.value))
    }
    for (; k < ts.length; k++) {
      const t = ts[k]
      if (t === undefined) break
      if (t.kind === "lparen") {
        depth++
        if (depth === 1) continue
      }
      if (t.kind === "rparen") {
        depth--
        if (depth === 0) {
          if (analyzes(option)) return deny("sql.write", "EXPLAIN (ANALYZE) executes the statement")
          k++
          break
        }
      }
      if (t.kind === "comma" && depth === 1) {
        if (analyzes(option)) return deny("sql.write", "EXPLAIN (ANALYZE) executes the statement")
        option = []
        continue
      }
      option.push(t)
    }
  }
  for (;;) {
    const w = wordAt(ts, k)
    if (w === "ANALYZE" || w === "ANALYSE") return deny("sql.write", `EXPLAIN ${w} executes the statement`)
    if (w === "VERBOSE" || w === "EXTENDED" || w === "PARTITIONS") k++
    else if (w === "QUERY" && isWord(ts, k + 1, "PLAN")) k += 2
    else if (w === "FORMAT" && isOp(ts, k + 1, "=")) k += 3
    else break
  }
  if (dialect === "mysql" && isWord(ts, k, "FOR") && isWord(ts, k + 1, "CONNECTION")) return undefined
  let h = k
  while (kindAt(ts, h) === "lparen") h++
  const target = wordAt(ts, h)
  if (target !== undefined && queryHeads.has(target)) return undefined
  const t = ts[k]
  if (dialect === "mysql" && h === k && t !== undefined && isNameToken(t) &&
    !(t.kind === "word" && (statementKeywords.has(t.value) || anywhereKeywords.has(t.value)))) {
    return undefined // EXPLAIN tbl [col] is DESCRIBE
  }
  if (target !== undefined && h === k && plannedTargets.has(target) && dialect !== "mysql") return "planned"
  if (target !== undefined) {
    const rule = statementKeywords.get(target) ?? anywhereKeywords.get(target)
    if (rule !== undefined) return deny(rule, `EXPLAIN of ${keywordReason(rule, target)}`)
  }
  return deny("sql.unclassified", `EXPLAIN of something other than a query (${t?.text ?? "nothing"})`)
}

export const pragma = (ts: ReadonlyArray<Token>): Denial | undefined => {
  let k = 1
  if (kindAt(ts, 2) === "dot") k = 3
  const nameToken = ts[k]
  if (nameToken === undefined || !isNameToken(nameToken)) return deny("sql.unclassified", "PRAGMA without a name")
  const name = nameToken.value.toLowerCase()
  if (ts.some((t) => t.kind === "op" && t.text === "=")) {
    return deny("sql.session", `PRAGMA ${name} = … changes the connection or the database`)
  }
  const rest = ts.slice(k + 1)
  if (rest.length === 0) {
    if (readPragmasWithArgument.has(name) || readPragmasBare.has(name)) return undefined
    return deny("sql.session", `PRAGMA ${name} is not a known read-only pragma`)
  }
  const argument = rest.length === 3 || (rest.length === 4 && (isOp(rest, 1, "-") || isOp(rest, 1, "+")))
  const last = rest[rest.length - 2]
  if (argument && kindAt(rest, 0) === "lparen" && kindAt(rest, rest.length - 1) === "rparen" && last !== undefined &&
    (isNameToken(last) || last.kind === "string" || last.kind === "number")) {
    if (readPragmasWithArgument.has(name)) return undefined
    return deny("sql.session", `PRAGMA ${name}(…) is a setter; only read pragmas are allowed`)
  }
  return deny("sql.unclassified", `PRAGMA ${name} with an unrecognised argument`)
}

const checksumTable = (ts: ReadonlyArray<Token>): boolean => {
  if (!isWord(ts, 1, "TABLE")) return false
  const rest = ts.slice(2).filter((t) => t.kind !== "semicolon")
  const last = rest.length > 0 && (isWord(rest, rest.length - 1, "QUICK") || isWord(rest, rest.length - 1, "EXTENDED")) ? rest.length - 1 : rest.length
  return last > 0 && rest.slice(0, last).every((t) => isNameToken(t) || t.kind === "dot" || t.kind === "comma")
}

export const readOnlyHead = (ts: ReadonlyArray<Token>, dialect: SqlDialect): Denial | undefined => {
  let h = 0
  while (kindAt(ts, h) === "lparen") h++
  const head = wordAt(ts, h)
  if (head !== undefined && queryHeads.has(head)) return undefined
  const first = ts[0]
  if (h > 0 || head === undefined) {
    return deny("sql.unclassified", `statement starts with ${first?.text ?? "nothing"}, not a known read-only form`)
  }
  switch (head) {
    case "EXPLAIN":
      return explain(ts, dialect)
    case "DESCRIBE":
    case "DESC":
      if (dialect === "mysql") return explain(ts, dialect)
      break
    case "SHOW":
      if (dialect !== "sqlite") return undefined
      break
    case "CHECKSUM":
      // MySQL/MariaDB: CHECKSUM TABLE t [, t2] [QUICK | EXTENDED] only reads the rows.
      if (dialect === "mysql" && checksumTable(ts)) return undefined
      break
    case "PRAGMA":
      if (dialect === "sqlite") return pragma(ts)
      break
  }
  const rule = statementKeywords.get(head) ?? anywhereKeywords.get(head)
  if (rule !== undefined) return deny(rule, keywordReason(rule, head))
  return deny("sql.unclassified", `statement starts with ${first?.text ?? head}, not a known read-only form`)
}

