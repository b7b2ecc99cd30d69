/** What the operator is shown when asked to approve a call: one readable line (or the SQL below its header). */
import { type Facts, nameOf } from "./Tools.js"

export const summary = (facts: Facts): string => {
  const call = facts.call
  if (call.tool === "bash") return `$ ${call.args.command}`
  if (call.tool === "sql_query") {
    const params = call.args.params === undefined ? "" : ` with parameters ${JSON.stringify(call.args.params)}`
    return `${call.args.write === true ? "WRITE " : ""}SQL on ${call.args.connection ?? "the default connection"}${params}:\n${call.args.sql}`
  }
  if (call.tool === "mcp_dynamic") return `${call.name} ${JSON.stringify(call.args)}`
  const paths = facts.paths.map((p) => p.path)
  return paths.length > 0 ? `${nameOf(call)} ${paths.join(" → ")}` : `${nameOf(call)} ${JSON.stringify(call.args)}`
}
