import { Context, type Effect, Schema } from "effect"

export class PostgresSyntaxError extends Schema.TaggedError<PostgresSyntaxError>()("PostgresSyntaxError", {
  reason: Schema.String
}) {
  override get message() {
    return `PostgreSQL cannot parse this: ${this.reason}`
  }
}

/** No PostgreSQL parser is installed in this build: every PostgreSQL statement is denied, with this reason. */
export class PostgresParserUnavailable extends Schema.TaggedError<PostgresParserUnavailable>()("PostgresParserUnavailable", {}) {
  override get message() {
    return "PostgreSQL's parser is not installed in this build"
  }
}

/**
 * PostgreSQL's own parser: the raw parse tree (libpg-query's JSON) as data, judged by `PgTreePolicy`. The tree is
 * `unknown` on purpose: the domain walks it defensively and denies any shape it does not expect.
 */
export interface PostgresParserShape {
  readonly parse: (sql: string) => Effect.Effect<unknown, PostgresSyntaxError | PostgresParserUnavailable>
}

export class PostgresParser extends Context.Tag("minicode/PostgresParser")<PostgresParser, PostgresParserShape>() {}
