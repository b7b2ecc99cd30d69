import { createRequire } from "node:module"
import * as path from "node:path"
import * as SqliteEngine from "../../../src/adapters/sql/SqliteEngine.js"
import { tempDir } from "../../support/Workspace.js"
import { contract } from "../../contracts/SqlEngine.contract.js"

// The engine opens existing databases only (it never creates one): the fixture creates it, as a user's app would.
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { close(): void }
const file = path.join(tempDir("minicode-sqlite-contract-"), "contract.db")
new Database(file).close()

contract("sqlite", {
  layer: SqliteEngine.layer,
  target: () => ({ dialect: "sqlite", file }),
  param: () => "?",
  slow: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
})
