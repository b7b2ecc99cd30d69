/**
 * `Usage.sentence`, pure: each kind of parser error told as a minicode sentence naming the flag or argument, what
 * it got and the valid choices, then where the command's help is. The built CLI's answers are in Errors.e2e.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Help from "../../src/cli/Help.js"
import * as Usage from "../../src/cli/Usage.js"

const item = (term: string, description = "", o: Partial<Help.Item> = {}): Help.Item => ({ term, description, optional: true, repeatable: false, switch: false, ...o })
const page: Help.Page = { path: ["mcp", "config"], purpose: "", examples: ["minicode mcp config --for claude-code"] }
const items: Usage.Items = {
  args: [item("SEQ", "An integer."), item("applied|absent", "One of the following: applied, absent")],
  options: [item("--cwd DIR", "Workspace root"), item("--for a|b|c", "The client", { optional: false }), item("--turn N", "Turn number"), item("--write", "", { switch: true })]
}
const help = "\n`minicode mcp config --help` shows its arguments, options and examples"

describe("a parser error as a sentence", () => {
  it("names the flag, what it got and the choices", () => {
    const table: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      ["Expected one of the following cases: a, b, c", ["mcp", "config", "--for", "z"], '--for must be one of a, b, c; got "z"'],
      ["Expected one of the following cases: a, b, c", ["mcp", "config", "--for=z"], '--for must be one of a, b, c; got "z"'],
      ["Expected one of the following cases: applied, absent", ["mcp", "config", "1", "maybe"], 'the second argument must be one of applied, absent; got "maybe"'],
      ["Expected to find option: '--for'", ["mcp", "config"], "`minicode mcp config` needs --for: one of a, b, c, e.g. `minicode mcp config --for claude-code`"],
      ["Expected a value following option: '--turn'", ["mcp", "config", "--turn"], "--turn needs a value: a whole number"],
      ["Missing argument <SEQ>", ["mcp", "config"], "`minicode mcp config` needs its SEQ argument: an integer, e.g. `minicode mcp config --for claude-code`"],
      ["'x' is not a integer", ["mcp", "config", "--turn", "x"], '--turn must be a whole number; got "x"'],
      ["Received unknown argument: '--bogus'", ["mcp", "config", "--bogus"], "`minicode mcp config` has no option --bogus; its options are --cwd, --for, --turn, --write"],
      ["Received unknown argument: '--turn'", ["mcp", "config", "--turn"], "--turn needs a value: a whole number"],
      ["Received unknown argument: 'more'", ["mcp", "config", "more"], '`minicode mcp config` does not take "more": its arguments are SEQ applied|absent'],
      ["Path 'f.jsonl' must exist", ["mcp", "config", "f.jsonl"], '"f.jsonl" does not exist'],
      ["Something else.", ["mcp", "config"], "Something else"]
    ]
    for (const [message, words, said] of table) assert.strictEqual(Usage.sentence(message, words, page, items), said + help)
  })
})
