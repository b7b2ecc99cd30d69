/**
 * Argument validation beyond the Schema: what a well-typed call can still get wrong. Pure; runs after the guard
 * and before anything executes.
 */
import * as D from "./Decision.js"
import type { ToolCall } from "./Tools.js"

const bad = (rule: string, reason: string) => D.deny("validation", rule, reason)

const regexError = (pattern: string, flags: string): string | undefined => {
  try {
    new RegExp(pattern, flags)
    return undefined
  } catch (cause) {
    return cause instanceof Error ? cause.message : String(cause)
  }
}

export const validate = (call: ToolCall): D.Decision | undefined => {
  switch (call.tool) {
    case "edit_file":
      if (call.args.old_string === "") return bad("validation.edit.empty", "old_string is empty: use write_file to create or replace a whole file")
      if (call.args.old_string === call.args.new_string) return bad("validation.edit.same", "old_string and new_string are identical: nothing to change")
      return undefined
    case "move_file":
      return call.args.from === call.args.to ? bad("validation.move.same", "from and to are the same path") : undefined
    case "grep": {
      const error = regexError(call.args.pattern, call.args.ignore_case === true ? "i" : "")
      return error === undefined ? undefined : bad("validation.grep.pattern", `pattern is not a valid regular expression: ${error}`)
    }
    case "glob":
      return call.args.pattern.trim() === "" ? bad("validation.glob.empty", "pattern is empty") : undefined
    case "bash":
      return call.args.command.trim() === "" ? bad("validation.bash.empty", "command is empty") : undefined
    case "git_commit":
      if (call.args.message.trim() === "") return bad("validation.commit.message", "the commit message is empty")
      return call.args.paths.length === 0 ? bad("validation.commit.paths", "paths is empty: name what to commit") : undefined
    case "git_show":
      return call.args.rev.startsWith("-") ? bad("validation.git.rev", "rev may not start with '-'") : undefined
    case "sql_query":
      return call.args.sql.trim() === "" ? bad("validation.sql.empty", "sql is empty") : undefined
    default:
      return undefined
  }
}
