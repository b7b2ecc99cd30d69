/**
 * The SQL guard's vocabulary: which functions reach outside the database or change state, and which keywords
 * modify data or the schema. Names are matched case-insensitively, across all dialects (a function that only one
 * dialect defines is denied in the others too: a user-defined lookalike is just as suspicious).
 */

/** What a function or form reaches. `state` and `session` are denied only in read-only mode. */
export type Reach =
  | "file"
  | "network"
  | "process"
  | "server"
  | "extension"
  | "dynamic"
  | "sleep"
  | "privilege"
  | "state"
  | "session"

export const reachRule = (reach: Reach): string =>
  reach === "session" ? "sql.session" : reach === "privilege" ? "sql.privilege" : `sql.function.${reach}`

export const deniedInWriteMode = (reach: Reach): boolean => reach !== "state" && reach !== "session"

export const reachDescription: Record<Reach, string> = {
  file: "reads or writes files on the database server",
  network: "opens network connections from the database server",
  process: "runs or signals server processes",
  server: "changes server-wide configuration, replication or logs",
  extension: "loads native code or extensions into the server",
  dynamic: "executes SQL text the guard cannot inspect",
  sleep: "stalls the server (resource abuse)",
  privilege: "changes roles, users or privileges",
  state: "changes database state (sequences, locks, large objects, transaction ids)",
  session: "changes session settings"
}

const exactFunctions: ReadonlyMap<string, Reach> = new Map<string, Reach>([
  // files
  ["load_file", "file"],
  ["pg_stat_file", "file"],
  ["pg_logdir_ls", "file"],
  ["lo_import", "file"],
  ["lo_export", "file"],
  ["readfile", "file"],
  ["writefile", "file"],
  ["fsdir", "file"],
  ["lsdir", "file"],
  ["zipfile", "file"],
  ["zipfile_cds", "file"],
  ["bfilename", "file"],
  ["openrowset", "file"],
  // network
  ["http", "network"],
  ["opendatasource", "network"],
  ["openquery", "network"],
  // processes
  ["sys_exec", "process"],
  ["sys_eval", "process"],
  ["sys_bineval", "process"],
  ["sys_get", "process"],
  ["sys_set", "process"],
  ["lib_mysqludf_sys_info", "process"],
  ["xp_cmdshell", "process"],
  ["edit", "process"],
  ["shell", "process"],
  ["pg_terminate_backend", "process"],
  ["pg_cancel_backend", "process"],
  ["pg_signal_backend", "process"],
  // server
  ["pg_reload_conf", "server"],
  ["pg_rotate_logfile", "server"],
  ["pg_rotate_logfile_old", "server"],
  ["pg_switch_wal", "server"],
  ["pg_switch_xlog", "server"],
  ["pg_promote", "server"],
  ["pg_start_backup", "server"],
  ["pg_stop_backup", "server"],
  ["pg_backup_start", "server"],
  ["pg_backup_stop", "server"],
  ["pg_wal_replay_pause", "server"],
  ["pg_wal_replay_resume", "server"],
  ["pg_xlog_replay_pause", "server"],
  ["pg_xlog_replay_resume", "server"],
  ["pg_replication_slot_advance", "server"],
  ["pg_sync_replication_slots", "server"],
  ["pg_log_backend_memory_contexts", "server"],
  ["pg_import_system_collations", "server"],
  ["pg_log_standby_snapshot", "server"],
  ["pg_wal_summary_contents", "server"],
  // extensions and native code
  ["load_extension", "extension"],
  ["fts3_tokenizer", "extension"],
  // dynamic SQL
  ["query_to_xml", "dynamic"],
  ["query_to_xmlschema", "dynamic"],
  ["query_to_xml_and_xmlschema", "dynamic"],
  ["cursor_to_xml", "dynamic"],
  ["cursor_to_xmlschema", "dynamic"],
  ["ts_stat", "dynamic"],
  ["ts_rewrite", "dynamic"],
  ["crosstab", "dynamic"],
  ["crosstab2", "dynamic"],
  ["crosstab3", "dynamic"],
  ["crosstab4", "dynamic"],
  ["connectby", "dynamic"],
  ["eval", "dynamic"],
  ["exec", "dynamic"],
  // sleeping
  ["sleep", "sleep"],
  ["benchmark", "sleep"],
  ["master_pos_wait", "sleep"],
  ["source_pos_wait", "sleep"],
  ["wait_for_executed_gtid_set", "sleep"],
  ["wait_until_sql_thread_after_gtids", "sleep"],
  ["dbms_lock_sleep", "sleep"],
  // state
  ["nextval", "state"],
  ["setval", "state"],
  ["txid_current", "state"],
  ["pg_current_xact_id", "state"],
  ["pg_export_snapshot", "state"],
  ["pg_notify", "state"],
  ["lowrite", "state"],
  ["loread", "state"],
  ["get_lock", "state"],
  ["release_lock", "state"],
  ["release_all_locks", "state"],
  ["service_get_write_locks", "state"],
  ["service_get_read_locks", "state"],
  ["service_release_locks", "state"],
  // session
  ["set_config", "session"],
  ["setseed", "session"],
  ["pg_stat_clear_snapshot", "session"]
])

/** Longest-prefix families, checked after the exact names. */
const prefixFunctions: ReadonlyArray<readonly [string, Reach]> = [
  ["pg_read_", "file"],
  ["pg_ls_", "file"],
  ["pg_file_", "file"],
  ["utl_file", "file"],
  ["dblink", "network"],
  ["http_", "network"],
  ["utl_", "network"],
  ["dbms_", "server"],
  ["pg_create_", "server"],
  ["pg_drop_", "server"],
  ["pg_logical_", "server"],
  ["pg_replication_origin_", "server"],
  ["pg_copy_", "server"],
  ["pg_stat_reset", "server"],
  ["pg_stat_statements_reset", "server"],
  ["keyring_", "server"],
  ["audit_log_", "server"],
  ["version_tokens_", "server"],
  ["query_to_xml", "dynamic"],
  ["cursor_to_xml", "dynamic"],
  ["table_to_xml", "dynamic"],
  ["schema_to_xml", "dynamic"],
  ["database_to_xml", "dynamic"],
  ["pg_background", "dynamic"],
  ["pg_sleep", "sleep"],
  ["pg_advisory", "state"],
  ["pg_try_advisory", "state"],
  ["lo_", "state"]
]

/** What calling `name` reaches, if anything worth denying. */
export const functionReach = (name: string): Reach | undefined => {
  const lower = name.toLowerCase()
  const exact = exactFunctions.get(lower)
  if (exact !== undefined) return exact
  for (const [prefix, reach] of prefixFunctions) {
    if (lower.startsWith(prefix)) return reach
  }
  return undefined
}

/** SQLite table-valued functions that reach files even without parentheses (`FROM fsdir WHERE name = '/'`). */
export const bareFileTables: ReadonlySet<string> = new Set(["FSDIR", "LSDIR", "ZIPFILE"])

/** PostgreSQL settings that make the server load native libraries. */
export const libraryLoadingSettings: ReadonlySet<string> = new Set([
  "SESSION_PRELOAD_LIBRARIES",
  "LOCAL_PRELOAD_LIBRARIES",
  "SHARED_PRELOAD_LIBRARIES",
  "DYNAMIC_LIBRARY_PATH",
  "JIT_PROVIDER"
])

/** Settings whose change through set_config is a privilege change. */
export const privilegedSettings: ReadonlySet<string> = new Set([
  "role",
  "session_authorization",
  "session_replication_role"
])

/** Procedural languages that cannot touch the server's files or processes. */
export const trustedLanguages: ReadonlySet<string> = new Set(["sql", "plpgsql", "plperl", "pltcl", "plv8", "pljs"])

/** SQLite virtual table modules that only store data inside the database file. */
export const safeVirtualTableModules: ReadonlySet<string> = new Set([
  "FTS3",
  "FTS4",
  "FTS5",
  "RTREE",
  "RTREE_I32",
  "GEOPOLY"
])

export type KeywordRule = "sql.write" | "sql.ddl" | "sql.lock" | "sql.transaction" | "sql.session" | "sql.privilege"

/**
 * Reserved words that modify data or the schema wherever they appear as an unquoted word (CTE bodies, after a
 * WITH, SELECT … INTO). Exceptions are handled by the guard: qualified names (`t.update`), the string functions
 * REPLACE(…), INSERT(…), TRUNCATE(…), and `SHOW CREATE …`.
 */
export const anywhereKeywords: ReadonlyMap<string, KeywordRule> = new Map<string, KeywordRule>([
  ["INSERT", "sql.write"],
  ["UPDATE", "sql.write"],
  ["DELETE", "sql.write"],
  ["MERGE", "sql.write"],
  ["UPSERT", "sql.write"],
  ["REPLACE", "sql.write"],
  ["INTO", "sql.write"],
  ["EXECUTE", "sql.write"],
  ["PREPARE", "sql.write"],
  ["DEALLOCATE", "sql.write"],
  ["CREATE", "sql.ddl"],
  ["DROP", "sql.ddl"],
  ["ALTER", "sql.ddl"],
  ["TRUNCATE", "sql.ddl"],
  ["GRANT", "sql.privilege"],
  ["REVOKE", "sql.privilege"]
])

/**
 * Statement verbs that are ordinary column names elsewhere (`comment`, `release`, `analyze`): denied when they
 * start a statement or a parenthesised body.
 */
export const statementKeywords: ReadonlyMap<string, KeywordRule> = new Map<string, KeywordRule>([
  ["BEGIN", "sql.transaction"],
  ["COMMIT", "sql.transaction"],
  ["ROLLBACK", "sql.transaction"],
  ["SAVEPOINT", "sql.transaction"],
  ["RELEASE", "sql.transaction"],
  ["START", "sql.transaction"],
  ["END", "sql.transaction"],
  ["ABORT", "sql.transaction"],
  ["XA", "sql.transaction"],
  ["SET", "sql.session"],
  ["RESET", "sql.session"],
  ["DISCARD", "sql.session"],
  ["USE", "sql.session"],
  ["ATTACH", "sql.session"],
  ["DETACH", "sql.session"],
  ["PRAGMA", "sql.session"],
  ["LOCK", "sql.lock"],
  ["UNLOCK", "sql.lock"],
  ["COPY", "sql.write"],
  ["EXPLAIN", "sql.write"],
  ["LOAD", "sql.write"],
  ["DO", "sql.write"],
  ["CALL", "sql.write"],
  ["HANDLER", "sql.write"],
  ["LISTEN", "sql.write"],
  ["UNLISTEN", "sql.write"],
  ["NOTIFY", "sql.write"],
  ["DECLARE", "sql.write"],
  ["FETCH", "sql.write"],
  ["MOVE", "sql.write"],
  ["CLOSE", "sql.write"],
  ["CACHE", "sql.write"],
  ["SIGNAL", "sql.write"],
  ["RESIGNAL", "sql.write"],
  ["INSTALL", "sql.write"],
  ["UNINSTALL", "sql.write"],
  ["FLUSH", "sql.write"],
  ["KILL", "sql.write"],
  ["SHUTDOWN", "sql.write"],
  ["RESTART", "sql.write"],
  ["PURGE", "sql.write"],
  ["CHANGE", "sql.write"],
  ["STOP", "sql.write"],
  ["CLONE", "sql.write"],
  ["BINLOG", "sql.write"],
  ["CHECKPOINT", "sql.write"],
  ["RENAME", "sql.ddl"],
  ["VACUUM", "sql.ddl"],
  ["REINDEX", "sql.ddl"],
  ["ANALYZE", "sql.ddl"],
  ["ANALYSE", "sql.ddl"],
  ["CLUSTER", "sql.ddl"],
  ["COMMENT", "sql.ddl"],
  ["REFRESH", "sql.ddl"],
  ["IMPORT", "sql.ddl"],
  ["SECURITY", "sql.ddl"],
  ["OPTIMIZE", "sql.ddl"],
  ["REPAIR", "sql.ddl"],
  ["REASSIGN", "sql.privilege"]
])

/** SQLite pragmas that read, with or without a single argument (`PRAGMA table_info(t)`). */
export const readPragmasWithArgument: ReadonlySet<string> = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_info",
  "index_xinfo",
  "index_list",
  "foreign_key_list",
  "foreign_key_check",
  "integrity_check",
  "quick_check"
])

/** SQLite pragmas whose bare form only reads a value (`PRAGMA user_version`). */
export const readPragmasBare: ReadonlySet<string> = new Set([
  "application_id",
  "auto_vacuum",
  "automatic_index",
  "busy_timeout",
  "cache_size",
  "cache_spill",
  "cell_size_check",
  "checkpoint_fullfsync",
  "collation_list",
  "compile_options",
  "data_version",
  "database_list",
  "defer_foreign_keys",
  "encoding",
  "foreign_keys",
  "freelist_count",
  "fullfsync",
  "function_list",
  "hard_heap_limit",
  "ignore_check_constraints",
  "journal_mode",
  "journal_size_limit",
  "legacy_alter_table",
  "locking_mode",
  "max_page_count",
  "mmap_size",
  "module_list",
  "page_count",
  "page_size",
  "pragma_list",
  "query_only",
  "read_uncommitted",
  "recursive_triggers",
  "reverse_unordered_selects",
  "schema_version",
  "secure_delete",
  "soft_heap_limit",
  "stats",
  "synchronous",
  "temp_store",
  "threads",
  "trusted_schema",
  "user_version",
  "wal_autocheckpoint",
  "analysis_limit"
])
