/**
 * PostgreSQL's own parser (libpg-query: the server's grammar compiled to WebAssembly). The module is loaded on the
 * first parse, so sessions that never judge PostgreSQL do not pay for it. A load failure is a parse failure: the
 * guard then denies (fail closed), it never waves a statement through.
 */
import { Effect, Layer } from "effect"
import { PostgresParser, PostgresSyntaxError } from "../../ports/PostgresParser.js"

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

export const make = Effect.gen(function* () {
  const loaded = yield* Effect.cached(
    Effect.tryPromise({
      try: async () => {
        const module = await import("libpg-query")
        await module.loadModule()
        return module
      },
      catch: (cause) => new PostgresSyntaxError({ reason: `the PostgreSQL parser cannot be loaded: ${message(cause)}` })
    })
  )
  return PostgresParser.of({
    parse: (sql) =>
      Effect.flatMap(loaded, (module) =>
        Effect.try({
          try: (): unknown => module.parseSync(sql),
          catch: (cause) => new PostgresSyntaxError({ reason: message(cause) })
        })
      )
  })
})

export const layer = Layer.effect(PostgresParser, make)
