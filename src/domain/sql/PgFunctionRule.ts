/**
 * Whether a PostgreSQL function may run in a read, decided by what the server's catalog says of it (issue 43), pure:
 * the engine looks up every overload a call may resolve to (pg_proc, by its schema or the search path) and asks this
 * module about each.
 *
 * Volatility is not the same as writing. A function is judged by these facts, in order:
 *
 * - a name a reach family knows (files, network, processes, server settings, dynamic SQL, sequences, locks, large
 *   objects, transaction ids: SqlCatalog.functionReach) is refused whatever the catalog says. Sleeping is the one
 *   family let through here: it changes nothing, the guard denies it by name (layer 1) and the engine's
 *   statement_timeout and cancellation bound it (layer 2 is about writing);
 * - SECURITY DEFINER runs with its owner's rights: refused;
 * - a built-in (pg_catalog) VOLATILE function reads only if it is one of `volatileReaders`: VOLATILE there only
 *   because its answer changes between calls (`random()`, `clock_timestamp()`, `gen_random_uuid()`, sizes, WAL
 *   positions, lock and blocking views). Every other VOLATILE built-in (nextval, set_config, lo_*, advisory locks,
 *   pg_notify, replication and backup control…) is refused;
 * - any other VOLATILE function (user-defined or an extension's) is refused: nothing tells what its body does;
 * - IMMUTABLE and STABLE functions may not write (the server refuses data changes in them, and the read-only
 *   transaction does too); an SQL-language body is still judged by the caller (the read-only guard).
 */
import { functionReach, reachDescription } from "./SqlCatalog.js"

/** Built-in VOLATILE functions that only read: their answer changes while a query runs, they change nothing. */
export const volatileReaders: ReadonlySet<string> = new Set([
  "random", "random_normal", "clock_timestamp", "timeofday", "gen_random_uuid", "uuidv4", "uuidv7", "currval", "lastval",
  "current_query", "pg_blocking_pids", "pg_safe_snapshot_blocking_pids", "pg_isolation_test_session_is_blocked",
  "pg_partition_tree", "pg_partition_ancestors", "pg_database_size", "pg_relation_size", "pg_table_size",
  "pg_indexes_size", "pg_total_relation_size", "pg_tablespace_size", "pg_is_in_recovery", "pg_jit_available",
  "pg_collation_actual_version", "pg_database_collation_actual_version", "pg_current_wal_lsn",
  "pg_current_wal_flush_lsn", "pg_current_wal_insert_lsn", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
  "pg_last_xact_replay_timestamp", "pg_is_wal_replay_paused", "pg_get_wal_replay_pause_state", "pg_lock_status",
  "pg_notification_queue_usage", "pg_sequence_last_value", "pg_stat_have_stats", "pg_xact_status", "txid_status",
  "pg_xact_commit_timestamp", "pg_xact_commit_timestamp_origin", "pg_last_committed_xact", "pg_get_multixact_members",
  "pg_prepared_xact", "pg_get_wal_resource_managers", "pg_stat_get_xact_blocks_fetched", "pg_stat_get_xact_blocks_hit",
  "pg_stat_get_xact_function_calls", "pg_stat_get_xact_function_self_time", "pg_stat_get_xact_function_total_time",
  "pg_stat_get_xact_numscans", "pg_stat_get_xact_tuples_deleted", "pg_stat_get_xact_tuples_fetched",
  "pg_stat_get_xact_tuples_hot_updated", "pg_stat_get_xact_tuples_inserted", "pg_stat_get_xact_tuples_returned",
  "pg_stat_get_xact_tuples_updated",
  // they only wait (the guard denies them by name; the statement timeout ends them)
  "pg_sleep", "pg_sleep_for", "pg_sleep_until"
])

/** One overload of a function as pg_proc describes it. */
export interface Overload {
  readonly schema: string
  /** pg_proc.provolatile: `i`, `s` or `v`. */
  readonly volatility: string
  readonly securityDefiner: boolean
  readonly language: string
}

const volatilityNames: Readonly<Record<string, string>> = { i: "IMMUTABLE", s: "STABLE", v: "VOLATILE" }

/** Why `name` (as the call spelled it, `[name]` or `[schema, name]`) may not run in a read as `overload`, or undefined. */
export const refusal = (qualified: ReadonlyArray<string>, overload: Overload): string | undefined => {
  const name = qualified[qualified.length - 1] ?? ""
  const shown = `${qualified.join(".")}()`
  const reach = functionReach(name)
  if (reach !== undefined && reach !== "sleep") return `${shown} ${reachDescription[reach]}`
  if (overload.securityDefiner) return `${shown} is SECURITY DEFINER: it runs with its owner's rights`
  if (overload.volatility === "i" || overload.volatility === "s") return undefined
  if (overload.schema === "pg_catalog" && volatileReaders.has(name.toLowerCase())) return undefined
  const vol = volatilityNames[overload.volatility] ?? overload.volatility
  return overload.schema === "pg_catalog"
    ? `${shown} is a ${vol} built-in that may change state (sequences, settings, locks, large objects, replication)`
    : `${shown} is ${vol} in ${overload.schema}: only IMMUTABLE and STABLE functions may run in a read (a VOLATILE body may write)`
}
