/**
 * `mcp serve`'s default with a client that can ask (issue 44 item 4), as pure decisions: with `bashAsks`, bash asks
 * in permission mode AUTO and nothing else changes (edits inside the jail stay allowed, gated tools and bash's
 * network ask as before, other policies and work modes decide as without it); and what "always" may save for bash:
 * exactly the words of the one unapproved command line as the person sees them, never a wildcard, a variable or
 * a quoted word, and only for the session's own ask for bash.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { matchesArgv } from "../../../src/domain/core/Allowlist.js"
import * as Approval from "../../../src/domain/core/Approval.js"
import * as D from "../../../src/domain/core/Decision.js"
import { AccessPolicy, PermissionMode, WorkMode } from "../../../src/domain/core/Modes.js"
import * as Policy from "../../../src/domain/core/Policy.js"
import * as Tools from "../../../src/domain/core/Tools.js"

const factsOf = (tool: string, args: Record<string, unknown>) => Tools.facts(Either.getOrThrow(Tools.decode(tool, args)))
const ctx = (over: Partial<Policy.PermissionContext>): Policy.PermissionContext => ({ root: "/ws", workMode: "BUILD", permissionMode: "AUTO", allowlist: [], ...over })
const bashAsk = D.ask("permission", "mode.bash-asks", "each bash command asks")

describe("Policy: bashAsks", () => {
  it("bash asks; a write inside the jail does not; a commit and bash's network ask as before", () => {
    const on = ctx({ bashAsks: true })
    const bash = Policy.evaluate(on, factsOf("bash", { command: "npm test" }))
    assert.deepStrictEqual([bash.decision, bash.rule], ["ask", "mode.bash-asks"])
    const write = Policy.evaluate(on, factsOf("write_file", { path: "a.txt", content: "x" }))
    assert.deepStrictEqual([write.decision, write.rule], ["allow", "mode.auto"])
    assert.strictEqual(Policy.evaluate(on, factsOf("git_commit", { message: "m", paths: ["a.txt"] })).rule, "policy.gated")
    assert.strictEqual(Policy.evaluate(on, factsOf("bash", { command: "npm i", network: true })).rule, "policy.bash-network")
    assert.strictEqual(Policy.evaluate(on, factsOf("read_file", { path: "a.txt" })).decision, "allow")
  })

  it.prop(
    "changes nothing but the default policy's AUTO answer for bash",
    {
      workMode: FastCheck.constantFrom(...WorkMode.literals),
      permissionMode: FastCheck.constantFrom(...PermissionMode.literals),
      policy: FastCheck.constantFrom(undefined, ...AccessPolicy.literals),
      call: FastCheck.constantFrom<readonly [string, Record<string, unknown>]>(
        ["bash", { command: "npm test" }],
        ["bash", { command: "curl x", network: true }],
        ["write_file", { path: "a.txt", content: "x" }],
        ["edit_file", { path: "a.txt", old_string: "a", new_string: "b" }],
        ["delete_file", { path: "a.txt" }],
        ["git_commit", { message: "m", paths: ["a.txt"] }],
        ["read_file", { path: "a.txt" }]
      )
    },
    ({ workMode, permissionMode, policy, call }) => {
      const facts = factsOf(call[0], call[1])
      const off = Policy.evaluate(ctx({ workMode, permissionMode, policy }), facts)
      const on = Policy.evaluate(ctx({ workMode, permissionMode, policy, bashAsks: true }), facts)
      const changes = policy === undefined && permissionMode === "AUTO" && off.rule === "mode.auto" && call[0] === "bash"
      assert.deepStrictEqual(on, changes ? D.ask("permission", "mode.bash-asks", on.reason) : off)
    }
  )
})

describe("Approval: what 'always' saves for bash", () => {
  const entry = (command: string, unmatched: ReadonlyArray<ReadonlyArray<string>>, decision = bashAsk) =>
    Approval.alwaysEntry(factsOf("bash", { command }), decision, unmatched)

  it("the words of the one unapproved command line, as shown", () => {
    assert.deepStrictEqual(entry("npm test", [["npm", "test"]]), { tool: "bash", argv: ["npm", "test"] })
    assert.deepStrictEqual(entry("cd sub && npm run lint -- --fix", [["npm", "run", "lint", "--", "--fix"]]), { tool: "bash", argv: ["npm", "run", "lint", "--", "--fix"] })
    assert.deepStrictEqual(entry("npm test; npm test", [["npm", "test"], ["npm", "test"]]), { tool: "bash", argv: ["npm", "test"] })
    assert.deepStrictEqual(entry("timeout 60 make check", [["timeout", "60", "make", "check"]]), { tool: "bash", argv: ["timeout", "60", "make", "check"] })
  })

  it("nothing for a variable, a glob, a quoted word, ~, two different command lines, or no command line", () => {
    const none: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<string>>]> = [
      ["echo $HOME", [["echo", "/home/me"]]],
      ["echo $HOME", [["echo", "\uE000"]]],
      ["cat *.txt", [["cat", "*.txt"]]],
      ["ls ~/x", [["ls", "~/x"]]],
      ["git commit -m 'a b'", [["git", "commit", "-m", "a b"]]],
      ["'npm' test", [["npm", "test"]]],
      ["npm test && npm run lint", [["npm", "test"], ["npm", "run", "lint"]]],
      ["cd x", []],
      ["bash -c 'npm test'", [["bash", "-c", "npm test"]]]
    ]
    for (const [command, unmatched] of none) assert.strictEqual(entry(command, unmatched), undefined, command)
  })

  it("nothing unless the ask is the session's ask for bash; never for bash's network; other tools keep their exact name", () => {
    assert.strictEqual(entry("npm test", [["npm", "test"]], D.ask("guard", "unsandboxed.workspace-code", "x")), undefined)
    assert.strictEqual(entry("npm test", [["npm", "test"]], D.ask("permission", "policy.bash-network", "x")), undefined)
    assert.deepStrictEqual(entry("npm test", [["npm", "test"]], D.ask("permission", "mode.ask", "x")), { tool: "bash", argv: ["npm", "test"] })
    assert.strictEqual(Approval.alwaysEntry(factsOf("bash", { command: "npm i", network: true }), D.ask("permission", "mode.ask", "x"), [["npm", "i"]]), undefined)
    assert.deepStrictEqual(Approval.alwaysEntry(factsOf("git_commit", { message: "m", paths: ["a"] })), { tool: "git_commit" })
  })

  const word = FastCheck.stringMatching(/^[a-z0-9$*?~'"{}[\]\\`.\/=-]{1,6}$/)
  it.prop(
    "an entry, when given, is words shown in the command, literal, and matches the command line it came from",
    { argv: FastCheck.array(word, { minLength: 1, maxLength: 4 }), extra: FastCheck.array(word, { maxLength: 2 }), quote: FastCheck.boolean() },
    ({ argv, extra, quote }) => {
      const command = [...argv.map((w, i) => (quote && i === 0 ? `'${w}'` : w)), ...extra].join(" ")
      const e = entry(command, [argv])
      if (e === undefined) return
      const tokens = new Set(command.split(/[\s;&|()<>]+/))
      assert.isTrue(e.argv !== undefined && e.argv.every((w) => tokens.has(w) && !/[$*?~'"{}[\]\\`]/.test(w)))
      assert.isTrue(matchesArgv(e, argv))
    }
  )
})
