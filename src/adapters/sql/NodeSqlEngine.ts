/**
 * The SQL engine a Node session uses: SQLite (better-sqlite3), PostgreSQL (pg) and MySQL/MariaDB (mysql2) behind one port, each driver
 * loaded on its first use, so a session that never queries PostgreSQL never loads pg, and a driver that cannot
 * load fails only the calls that need it.
 */
import { Effect, Layer, Scope } from "effect"
import { SqlEngine } from "../../ports/SqlEngine.js"
import * as MysqlEngine from "./MysqlEngine.js"
import * as PostgresEngine from "./PostgresEngine.js"
import * as SqliteEngine from "./SqliteEngine.js"

export const make = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const sqlite = yield* Effect.cached(Scope.extend(SqliteEngine.make, scope))
  const postgres = yield* Effect.cached(Scope.extend(PostgresEngine.make, scope))
  const mysql = yield* Effect.cached(Scope.extend(MysqlEngine.make, scope))
  const engines = { sqlite, postgres, mysql }
  return SqlEngine.of({
    run: (target, request) => Effect.flatMap(engines[target.dialect], (engine) => engine.run(target, request))
  })
})

export const layer = Layer.scoped(SqlEngine, make)
