/**
 * PgFunctionRule (issue 43): whether one overload pg_proc describes may run in a read. Volatility is not writing:
 * built-in VOLATILE readers (random, clock_timestamp, sizes) run; every other VOLATILE function, SECURITY DEFINER and
 * the reach families are refused whatever the catalog says.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { type Overload, refusal, volatileReaders } from "../../../src/domain/sql/PgFunctionRule.js"
import { allowedFunction } from "../../../src/domain/sql/PgTreePolicy.js"
import { functionReach } from "../../../src/domain/sql/SqlCatalog.js"

const overload = (o: Partial<Overload>): Overload => ({ schema: "pg_catalog", volatility: "i", securityDefiner: false, language: "internal", ...o })

/** Names the reach families know: each must be refused, whatever pg_proc says of it. */
const reaching = [
  "pg_read_file", "pg_ls_dir", "lo_import", "lo_get", "dblink_exec", "nextval", "setval", "set_config", "txid_current",
  "pg_current_xact_id", "pg_advisory_lock", "pg_try_advisory_xact_lock", "pg_notify", "query_to_xml", "table_to_xml",
  "pg_terminate_backend", "pg_reload_conf", "pg_create_logical_replication_slot", "pg_logical_emit_message"
]

const name = FastCheck.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/)
const schema = FastCheck.constantFrom("pg_catalog", "public", "app", "ext")
const volatility = FastCheck.constantFrom("i", "s", "v")

describe("PgFunctionRule", () => {
  it("IMMUTABLE and STABLE functions run, built-in or not; VOLATILE built-in readers run", () => {
    for (const n of ["date", "text", "int4", "enum_range", "aclexplode", "pg_relation_filepath", "txid_current_snapshot"]) {
      assert.isUndefined(refusal([n], overload({ volatility: "s" })), n)
    }
    assert.isUndefined(refusal(["twice"], overload({ schema: "public", volatility: "s", language: "plpgsql" })))
    for (const n of ["random", "clock_timestamp", "gen_random_uuid", "timeofday", "pg_total_relation_size", "pg_blocking_pids"]) {
      assert.isUndefined(refusal([n], overload({ volatility: "v" })), n)
    }
  })

  it("VOLATILE user functions are refused even under a reader's name; so are SECURITY DEFINER ones", () => {
    assert.match(refusal(["random"], overload({ schema: "public", volatility: "v", language: "plpgsql" })) ?? "", /VOLATILE in public/)
    assert.match(refusal(["log_action"], overload({ schema: "app", volatility: "v", language: "sql" })) ?? "", /VOLATILE/)
    assert.match(refusal(["owner_only"], overload({ schema: "public", volatility: "s", securityDefiner: true })) ?? "", /SECURITY DEFINER/)
  })

  it.prop("every reach-family name is refused whatever pg_proc says", [FastCheck.constantFrom(...reaching), schema, volatility, FastCheck.boolean()], ([n, s, v, d]) => {
    assert.isDefined(functionReach(n), n)
    assert.isDefined(refusal([n], overload({ schema: s, volatility: v, securityDefiner: d })), n)
    assert.isDefined(refusal([s, n], overload({ schema: s, volatility: v, securityDefiner: d })), n)
    assert.isFalse(allowedFunction([n]), n)
  })

  it.prop("a VOLATILE function runs only if it is a built-in reader", [name, schema], ([n, s]) => {
    const allowed = refusal([n], overload({ schema: s, volatility: "v" })) === undefined
    assert.strictEqual(allowed, s === "pg_catalog" && volatileReaders.has(n) && (functionReach(n) === undefined || functionReach(n) === "sleep"), `${s}.${n}`)
  })

  it.prop("SECURITY DEFINER is always refused", [name, schema, volatility], ([n, s, v]) => {
    assert.isDefined(refusal([n], overload({ schema: s, volatility: v, securityDefiner: true })))
  })

  it.prop("IMMUTABLE/STABLE without SECURITY DEFINER runs unless a reach family knows the name", [name, schema, FastCheck.constantFrom("i", "s")], ([n, s, v]) => {
    assert.strictEqual(refusal([n], overload({ schema: s, volatility: v })) === undefined, functionReach(n) === undefined || functionReach(n) === "sleep", n)
  })

  it("sleeping changes nothing: the engine lets it run under its statement timeout; without a connection it is denied", () => {
    for (const n of ["pg_sleep", "pg_sleep_for", "pg_sleep_until"]) {
      assert.isUndefined(refusal([n], overload({ volatility: "v" })), n)
      assert.isDefined(refusal([n], overload({ schema: "public", volatility: "v" })), n)
      assert.isFalse(allowedFunction([n]), n)
    }
  })

  it("the static allowlist (no connection) has every volatile reader and no reach-family name", () => {
    for (const n of volatileReaders) assert.isTrue(allowedFunction([n]) || functionReach(n) !== undefined, n)
    for (const n of reaching) assert.isFalse(allowedFunction([n]), n)
    assert.isFalse(allowedFunction(["public", "lower"]))
  })
})
