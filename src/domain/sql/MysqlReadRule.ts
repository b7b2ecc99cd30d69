/**
 * The MySQL/MariaDB engine's own rule for a read statement (layer 2, beside the session's READ ONLY and the
 * read-only transaction): what a read-only transaction does not stop is refused by the statement's shape.
 *
 * - The statement must begin with a reading keyword (SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN,
 *   CHECKSUM, HELP or a parenthesis). Everything else is refused: `START TRANSACTION READ WRITE` ends the read-only
 *   transaction and begins a writable one (the session's READ ONLY does not hold inside it, so `UPDATE …; COMMIT`
 *   committed), `CALL` runs a procedure that may do the same, `PREPARE`/`EXECUTE` run a text nobody judged, `SET`,
 *   `LOCK`, `XA`, `DO` change the connection.
 * - `INTO OUTFILE`/`INTO DUMPFILE` write a server file from a SELECT, which a read-only transaction allows.
 *
 * The text is lexed both with and without backslash escapes in strings (the server's sql_mode decides, and a string
 * read the wrong way could hide a word); code in executable comments (`/*! … *\/`) counts. A text the lexer cannot
 * read is refused. Pure: the same text always gets the same answer.
 */
import { Either } from "effect"
import { defaultOptions, lex, type Token } from "./SqlLexer.js"

const readingHeads: ReadonlySet<string> = new Set(["SELECT", "WITH", "VALUES", "TABLE", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "CHECKSUM", "HELP"])

const fileWords: ReadonlySet<string> = new Set(["OUTFILE", "DUMPFILE"])

const judgeTokens = (tokens: ReadonlyArray<Token>): string | undefined => {
  const code = tokens.filter((t) => t.kind !== "semicolon")
  const head = code[0]
  if (head === undefined) return "an empty statement"
  const opens = head.kind === "word" ? readingHeads.has(head.value) : head.text === "("
  if (!opens) return `${head.kind === "word" ? head.value : head.text} does not read; a read-only connection runs only SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN, CHECKSUM and HELP`
  for (let i = 0; i + 1 < code.length; i++) {
    const word = code[i]
    const next = code[i + 1]
    if (word?.kind === "word" && word.value === "INTO" && next?.kind === "word" && fileWords.has(next.value)) {
      return `INTO ${next.value} writes a file on the server; refused on a read-only connection`
    }
  }
  return undefined
}

/** Why the engine refuses `sql` on a read-only MySQL/MariaDB connection, or undefined when it may run. */
export const refusal = (sql: string): string | undefined => {
  const base = defaultOptions("mysql")
  for (const backslash of [true, false]) {
    const lexed = lex(sql, { ...base, backslashInSingle: backslash, backslashInDouble: backslash })
    if (Either.isLeft(lexed)) return `the statement cannot be read (${lexed.left.message})`
    const reason = judgeTokens(lexed.right.tokens)
    if (reason !== undefined) return reason
  }
  return undefined
}
