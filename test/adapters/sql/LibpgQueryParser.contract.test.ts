/**
 * The PostgresParser contract on libpg-query (PostgreSQL's grammar as WebAssembly) and on the explicit "not
 * installed" adapter (`Unavailable.sql`), which must refuse every parse so the guard denies.
 */
import { Effect } from "effect"
import * as LibpgQueryParser from "../../../src/adapters/sql/LibpgQueryParser.js"
import * as Unavailable from "../../../src/adapters/Unavailable.js"
import { PostgresParser } from "../../../src/ports/PostgresParser.js"
import { contract } from "../../contracts/PostgresParser.contract.js"

contract("libpg-query", { make: LibpgQueryParser.make, parses: true })
contract("not installed", { make: Effect.provide(PostgresParser, Unavailable.sql), parses: false })
