/** The SqlEngine contract on a throwaway PostgreSQL cluster; skipped without PostgreSQL binaries (CI fails then, see PostgresEngine.test.ts). */
import { afterAll, beforeAll, describe } from "@effect/vitest"
import * as PostgresEngine from "../../../src/adapters/sql/PostgresEngine.js"
import * as Postgres from "../../support/Postgres.js"
import { contract } from "../../contracts/SqlEngine.contract.js"

describe.runIf(Postgres.hasPostgres)("postgres cluster", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())

  contract("postgres", {
    layer: PostgresEngine.layer,
    target: () => ({ dialect: "postgres", url: cluster?.url ?? "" }),
    param: (n) => `$${n}`,
    slow: "SELECT pg_sleep(5)"
  })
})
