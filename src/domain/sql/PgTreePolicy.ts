/**
 * The second static opinion for PostgreSQL (issue 7): a walk of the tree PostgreSQL's own parser produced
 * (libpg-query's JSON), with allowlists rather than denylists. Every statement node anywhere in the tree (CTE
 * bodies included) must be of an allowed kind, every function call must name an allowed built-in, every operator
 * must be a built-in symbol, and read-only SELECTs may not carry `INTO` or a locking clause. Pure: the tree comes
 * in as data; anything of an unexpected shape is denied.
 */
import { secretRelations } from "./guard/Catalog.js"
import { immutableOrStable } from "./PgBuiltins.js"
import { volatileReaders } from "./PgFunctionRule.js"
import { functionReach } from "./SqlCatalog.js"

export type PgVerdict =
  | {
      readonly _tag: "Allow"
      readonly statements: number
      /**
       * With `deferFunctions`: every function the text calls (none a reach family knows), for the engine to decide by
       * what the server says of them (pg_proc: PgFunctionRule); each is `[name]` or `[schema, name]`.
       */
      readonly deferred?: ReadonlyArray<ReadonlyArray<string>>
    }
  | { readonly _tag: "Deny"; readonly rule: string; readonly reason: string }

const deny = (rule: string, reason: string): PgVerdict => ({ _tag: "Deny", rule, reason })

/** Statement kinds a read-only call may contain. */
const readStatements: ReadonlySet<string> = new Set(["SelectStmt", "ExplainStmt", "VariableShowStmt"])

/** Statement kinds a permitted write may contain, besides the read-only ones: data and ordinary schema changes. */
const writeStatements: ReadonlySet<string> = new Set([
  "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt",
  "CreateStmt", "CreateTableAsStmt", "AlterTableStmt", "DropStmt", "IndexStmt", "ViewStmt", "RenameStmt",
  "CommentStmt", "TruncateStmt", "CreateSeqStmt", "AlterSeqStmt", "CreateEnumStmt", "AlterEnumStmt",
  "CompositeTypeStmt", "CreateDomainStmt", "RefreshMatViewStmt", "CreateSchemaStmt"
])

/** Statement kinds an EXPLAIN without ANALYZE may plan in a read: it shows their plan and runs nothing. */
const plannedStatements: ReadonlySet<string> = new Set(["InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt"])

/**
 * Built-in functions a query may call (pg_catalog, unqualified or qualified by `pg_catalog`). Families are
 * admitted by prefix below; everything that reaches files, processes, the network, other sessions, server
 * configuration or sequences/locks is absent by construction.
 */
const functions: ReadonlySet<string> = new Set([
  // aggregates and windows
  "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "stddev",
  "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp", "mode",
  "percentile_cont", "percentile_disc", "rank", "dense_rank", "percent_rank", "cume_dist", "row_number", "ntile",
  "lag", "lead", "first_value", "last_value", "nth_value", "string_agg", "any_value", "range_agg", "range_intersect_agg",
  "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy",
  "grouping",
  // strings
  "lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length", "bit_length", "substr",
  "substring", "position", "strpos", "overlay", "btrim", "ltrim", "rtrim", "trim", "lpad", "rpad", "replace",
  "translate", "concat", "concat_ws", "format", "left", "right", "repeat", "reverse", "split_part", "starts_with",
  "ascii", "chr", "md5", "sha224", "sha256", "sha384", "sha512", "encode", "decode", "quote_ident", "quote_literal",
  "quote_nullable", "normalize", "unistr", "casefold", "convert_from", "convert_to", "like_escape", "similar_escape",
  "similar_to_escape", "crc32", "crc32c", "parse_ident", "get_byte", "get_bit", "set_byte", "set_bit",
  // numbers
  "abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "cbrt", "exp", "ln", "log", "log10", "power",
  "pow", "mod", "div", "pi", "degrees", "radians", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sind", "cosd",
  "tand", "sinh", "cosh", "tanh", "gcd", "lcm", "factorial", "width_bucket", "scale", "min_scale", "trim_scale",
  "numeric", "int4", "int8", "float8", "random", "random_normal", "greatest", "least", "nullif", "coalesce", "num_nulls",
  "num_nonnulls",
  // dates and times
  "now", "current_timestamp", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday",
  "extract", "date_part", "date_trunc", "date_bin", "age", "justify_days", "justify_hours", "justify_interval",
  "make_date", "make_time", "make_timestamp", "make_timestamptz", "make_interval", "isfinite", "timezone",
  "date_add", "date_subtract", "overlaps",
  // ids, uuids, networks, misc values
  "gen_random_uuid", "uuidv4", "uuidv7", "uuid_extract_timestamp", "uuid_extract_version", "host", "hostmask",
  "masklen", "netmask", "network", "broadcast", "family", "abbrev", "inet_same_family", "inet_merge",
  "generate_series", "generate_subscripts", "unnest", "cardinality", "lower_inc", "upper_inc", "lower_inf",
  "upper_inf", "isempty", "multirange", "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
  "row_to_json", "hstore",
  // full text
  "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery", "ts_rank", "ts_rank_cd", "ts_headline", "setweight",
  "strip", "numnode", "querytree", "ts_lexize", "tsvector_to_array", "array_to_tsvector",
  // session and catalog information
  "current_database", "current_catalog", "current_schema", "current_schemas", "current_user", "current_role",
  "session_user", "user", "version", "current_setting", "inet_server_addr", "inet_server_port", "obj_description",
  "col_description", "shobj_description", "format_type", "currval", "lastval", "txid_current_if_assigned",
  "row_security_active", "age", "mxid_age", "quote_ident", "exists",
  // XML
  "xpath", "xpath_exists", "xmlparse", "xmlserialize", "xmlelement", "xmlforest", "xmlconcat", "xmlagg", "xmlcomment",
  "xmlexists", "xml_is_well_formed", "xml_is_well_formed_document", "xml_is_well_formed_content", "xmltext"
])

/** Families admitted by prefix. */
const functionPrefixes: ReadonlyArray<string> = [
  "array_", "json_", "jsonb_", "regexp_", "string_to_", "to_", "has_", "pg_get_", "pg_size_", "ts_", "bool_", "date_",
  "make_", "range_", "multirange_", "numeric_", "xml"
]

/** `pg_*` information functions (sizes, visibility, type and index facts). */
const pgInformation: ReadonlySet<string> = new Set([
  "pg_typeof", "pg_column_size", "pg_column_compression", "pg_database_size", "pg_relation_size", "pg_table_size",
  "pg_indexes_size", "pg_total_relation_size", "pg_relation_filenode", "pg_table_is_visible", "pg_type_is_visible",
  "pg_function_is_visible", "pg_is_in_recovery", "pg_postmaster_start_time", "pg_conf_load_time", "pg_backend_pid",
  "pg_has_role", "pg_encoding_to_char", "pg_char_to_encoding", "pg_client_encoding", "pg_index_column_has_property",
  "pg_index_has_property", "pg_indexam_has_property", "pg_jit_available", "pg_my_temp_schema", "pg_is_other_temp_schema",
  "pg_trigger_depth", "pg_collation_is_visible", "pg_opclass_is_visible", "pg_operator_is_visible",
  "pg_ts_config_is_visible", "pg_input_is_valid", "pg_input_error_info", "pg_options_to_table", "pg_tablespace_size",
  "pg_describe_object", "pg_identify_object", "pg_identify_object_as_address", "pg_current_xact_id_if_assigned",
  "pg_xact_status", "pg_visible_in_snapshot", "pg_column_is_updatable", "pg_relation_is_updatable", "pg_basetype",
  "pg_char_to_encoding", "pg_stat_get_numscans",
  // VOLATILE in pg_proc only because their answer changes while a query runs; they read, never write
  "pg_blocking_pids", "pg_safe_snapshot_blocking_pids", "pg_partition_tree", "pg_partition_ancestors", "pg_partition_root"
])

/** Functions a prefix would admit that run SQL given as text (dynamic SQL the walk cannot see). */
const excluded: ReadonlySet<string> = new Set(["ts_stat", "ts_rewrite"])

const builtinOperators: ReadonlySet<string> = new Set([
  "+", "-", "*", "/", "%", "^", "|/", "||/", "@", "&", "|", "#", "~", "<<", ">>", "=", "<>", "!=", "<", ">", "<=", ">=",
  "||", "~~", "!~~", "~~*", "!~~*", "~*", "!~", "!~*", "->", "->>", "#>", "#>>", "@>", "<@", "?", "?|", "?&", "#-",
  "@?", "@@", "@@@", "&&", "<->", "<#>", "<<|", "|>>", "&<", "&>", "&<|", "|&>", "-|-", "<^", ">^", "?#", "?-", "?|",
  "?-|", "?||", "~=", "BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC", "<<=", ">>=", "##", "!!", "^@", "<%", "%>", "<<%", "%>>", "<<->", "<->>", "@-@", "|=|", "=|="
])

/** PostgreSQL 15's IMMUTABLE and STABLE built-ins (PgBuiltins), less every name a reach family knows. */
const builtins: ReadonlySet<string> = new Set(immutableOrStable.filter((name) => functionReach(name) === undefined))

/** The static allowlist, for deciding without a connection (on one, pg_proc decides: PgFunctionRule). */
export const allowedFunction = (qualified: ReadonlyArray<string>): boolean => {
  if (qualified.length === 0 || qualified.length > 2) return false
  if (qualified.length === 2 && qualified[0] !== "pg_catalog") return false
  const name = qualified[qualified.length - 1]
  if (name === undefined || excluded.has(name) || functionReach(name) !== undefined) return false
  return functions.has(name) || builtins.has(name) || volatileReaders.has(name) || pgInformation.has(name) || functionPrefixes.some((p) => name.startsWith(p))
}

// ---------------------------------------------------------------------------------------------------------------

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v)

/** `[{String: {sval}}…]` → names; undefined when the shape is not a plain name list. */
const names = (list: unknown): ReadonlyArray<string> | undefined => {
  if (!Array.isArray(list)) return undefined
  const out: Array<string> = []
  for (const item of list) {
    const s = isRecord(item) ? item["String"] : undefined
    const sval = isRecord(s) ? s["sval"] : undefined
    if (typeof sval !== "string") return undefined
    out.push(sval)
  }
  return out
}

/** A node is an object with exactly one PascalCase key (`{SelectStmt: {...}}`). */
const nodeKind = (v: Readonly<Record<string, unknown>>): string | undefined => {
  const keys = Object.keys(v)
  const only = keys.length === 1 ? keys[0] : undefined
  return only !== undefined && /^[A-Z]/.test(only) && isRecord(v[only]) ? only : undefined
}

const maxDepth = 400

interface Ctx {
  readonly write: boolean
  /** Inside an EXPLAIN without ANALYZE: the statement is planned, never run, so data changes may be named. */
  readonly planOnly?: boolean
  /** Collects functions off the allowlist instead of denying them (undefined: deny them). */
  readonly deferred: Array<ReadonlyArray<string>> | undefined
}

const falseValues: ReadonlySet<string> = new Set(["false", "off", "0", "no"])

const explainAnalyzes = (body: Readonly<Record<string, unknown>>): boolean => {
  const options = body["options"]
  if (!Array.isArray(options)) return false
  return options.some((o) => {
    const def = isRecord(o) ? o["DefElem"] : undefined
    if (!isRecord(def)) return false
    if (def["defname"] !== "analyze") return false
    const arg = def["arg"]
    if (arg === undefined) return true
    const s = isRecord(arg) ? arg["String"] ?? arg["Boolean"] : undefined
    const value = isRecord(s) ? s["sval"] ?? s["boolval"] : undefined
    if (typeof value === "boolean") return value
    return !(typeof value === "string" && falseValues.has(value.toLowerCase()))
  })
}

const judgeNode = (kind: string, body: Readonly<Record<string, unknown>>, ctx: Ctx): PgVerdict | undefined => {
  if (kind.endsWith("Stmt")) {
    const planned = ctx.planOnly === true && plannedStatements.has(kind)
    if (!readStatements.has(kind) && !planned && !(ctx.write && writeStatements.has(kind))) {
      return deny(ctx.write ? "sql.pg.statement" : "sql.pg.read-only", `${kind} is not ${ctx.write ? "an allowed statement kind" : "a read-only statement"} (PostgreSQL parser)`)
    }
    if (kind === "SelectStmt" && !ctx.write) {
      if (body["intoClause"] !== undefined) return deny("sql.pg.read-only", "SELECT … INTO creates a table (PostgreSQL parser)")
      if (body["lockingClause"] !== undefined) return deny("sql.pg.read-only", "a locking clause (FOR UPDATE/SHARE) takes row locks (PostgreSQL parser)")
    }
    if (kind === "ExplainStmt" && explainAnalyzes(body)) {
      return deny("sql.pg.read-only", "EXPLAIN ANALYZE executes the statement (PostgreSQL parser)")
    }
    if (kind === "CreateTableAsStmt" || kind === "CreateStmt") {
      const into = body["into"]
      if (isRecord(into) && into["accessMethod"] !== undefined) return deny("sql.pg.statement", "a table access method (PostgreSQL parser)")
    }
    return undefined
  }
  if (kind === "RangeVar") {
    const rel = typeof body["relname"] === "string" ? body["relname"] : ""
    const schema = typeof body["schemaname"] === "string" ? body["schemaname"] : undefined
    if (secretRelations.has(rel) && (schema === undefined || schema === "pg_catalog")) {
      return deny("sql.catalog.secret", `${rel} holds the server's configuration files, password hashes or credentials (PostgreSQL parser)`)
    }
    if (ctx.write && (rel.startsWith("pg_") || (schema !== undefined && ["pg_catalog", "information_schema", "pg_toast"].includes(schema)))) {
      return deny("sql.catalog.write", `${schema === undefined ? "" : `${schema}.`}${rel} is a system catalog: writes never touch catalogs (PostgreSQL parser)`)
    }
    return undefined
  }
  if (kind === "AlterTableCmd" && body["subtype"] === "AT_ChangeOwner") {
    return deny("sql.privilege", "OWNER TO changes who owns an object (PostgreSQL parser)")
  }
  if (kind === "CreateSchemaStmt" && body["authrole"] !== undefined) {
    return deny("sql.privilege", "CREATE SCHEMA … AUTHORIZATION gives the schema to another role (PostgreSQL parser)")
  }
  if (kind === "FuncCall") {
    const fname = names(body["funcname"])
    if (fname === undefined) return deny("sql.pg.function", "a function call of unexpected shape (PostgreSQL parser)")
    // On a connection every call is left to pg_proc (the allowlist does not decide there: a user's public.lower()
    // would pass it), but nothing a reach family knows: files, programs, network, large objects stay denied by name.
    if (ctx.deferred !== undefined && fname.length <= 2 && functionReach(fname[fname.length - 1] ?? "") === undefined) {
      if (!ctx.deferred.some((f) => f.join(".") === fname.join("."))) ctx.deferred.push(fname)
      return undefined
    }
    if (!allowedFunction(fname)) {
      return deny("sql.pg.function", `${fname.join(".")}() is not on the function allowlist (PostgreSQL parser)`)
    }
    return undefined
  }
  if (kind === "A_Expr") {
    const op = names(body["name"])
    if (op === undefined) return undefined // IN lists, BETWEEN… carry their operator in the same shape; absent is fine
    const symbol = op[op.length - 1]
    const schemaOk = op.length === 1 || (op.length === 2 && op[0] === "pg_catalog")
    if (!schemaOk || symbol === undefined || !builtinOperators.has(symbol)) {
      return deny("sql.pg.operator", `operator ${op.join(".")} is not a built-in operator (PostgreSQL parser)`)
    }
    return undefined
  }
  return undefined
}

const walk = (value: unknown, ctx: Ctx, depth: number): PgVerdict | undefined => {
  if (depth > maxDepth) return deny("sql.pg.too-deep", "the statement's tree is too deep to inspect")
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = walk(item, ctx, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (!isRecord(value)) return undefined
  const kind = nodeKind(value)
  let inner = ctx
  if (kind !== undefined) {
    const body = value[kind]
    if (isRecord(body)) {
      const found = judgeNode(kind, body, ctx)
      if (found !== undefined) return found
      // EXPLAIN without ANALYZE (judgeNode denied the other) only plans what it names.
      if (kind === "ExplainStmt") inner = { ...ctx, planOnly: true }
    }
  }
  for (const child of Object.values(value)) {
    const found = walk(child, inner, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Judges a libpg-query parse result (`{version, stmts: [{stmt}]}`): every statement and everything nested in it.
 * Read-only unless `write`.
 */
export const judge = (tree: unknown, options: { readonly write?: boolean; readonly deferFunctions?: boolean }): PgVerdict => {
  const ctx: Ctx = { write: options.write === true, deferred: options.deferFunctions === true ? [] : undefined }
  const stmts = isRecord(tree) ? tree["stmts"] : undefined
  if (!Array.isArray(stmts)) return deny("sql.pg.shape", "the parser returned no statement list")
  if (stmts.length === 0) return deny("sql.unclassified", "empty SQL: nothing to run")
  for (const [index, raw] of stmts.entries()) {
    const stmt = isRecord(raw) ? raw["stmt"] : undefined
    if (!isRecord(stmt) || nodeKind(stmt) === undefined) return deny("sql.pg.shape", `statement ${index + 1} has an unexpected shape`)
    const found = walk(stmt, ctx, 0)
    if (found !== undefined && found._tag === "Deny") {
      return stmts.length > 1 ? deny(found.rule, `statement ${index + 1} of ${stmts.length}: ${found.reason}`) : found
    }
  }
  return ctx.deferred === undefined || ctx.deferred.length === 0
    ? { _tag: "Allow", statements: stmts.length }
    : { _tag: "Allow", statements: stmts.length, deferred: ctx.deferred }
}
