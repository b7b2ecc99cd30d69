import { Context } from "effect"
import type { Connections } from "../domain/sql/SqlConnection.js"

/** The configured SQL connections (the config file's `sql` entries, decoded). Absent means none configured. */
export class SqlConnections extends Context.Tag("minicode/SqlConnections")<SqlConnections, Connections>() {}
