/**
 * `Remedy`, pure: every refusal rule of every stage says how to proceed, for each front end in its own terms: the
 * CLI names its flags, `mcp serve` its own flags and config keys (never the CLI's --work-mode or --policy), the
 * library its session options. Rule ids are the ones the gates emit (src/ is searched for them, so a new rule
 * without a remedy fails here).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Remedy from "../../../src/domain/core/Remedy.js"

const sources = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []))

/** Rules that allow or ask, never refuse; and refusals whose reason already says how to allow the call. */
const notRefusals = new Set(["policy.read", "policy.readonly.read", "policy.plan.read", "policy.plan.artefact", "policy.allowlist.read", "policy.allowlist.match", "policy.allowlist.bash", "policy.allow-all", "policy.unrestricted", "policy.gated", "policy.bash-network", "policy.bash-network.configured", "mode.auto", "mode.ask", "mode.bash-asks", "approval.granted", "allowlist.saved", "guard.pass", "jail.inside", "net.public", "net.private-allowed", "mcp.json", "mcp.servers"])
const toldInReason = new Set(["approval.declined", "sql.write.not-allowed"])

const rules = [
  ...new Set(
    sources("src")
      .flatMap((f) => [...fs.readFileSync(f, "utf8").matchAll(/"((?:mode|policy|jail|guard|validation|sql|net|approval)\.[a-z0-9.-]+)"/g)].map((m) => m[1] ?? ""))
      .filter((r) => !notRefusals.has(r))
  )
].sort()

const stageOf = (rule: string) =>
  rule.startsWith("mode.") || rule.startsWith("policy.") || rule.startsWith("approval.") ? "permission" : rule.startsWith("jail.") ? "jail" : rule.startsWith("validation.") ? "validation" : "guard"

describe("every refusal says how to proceed", () => {
  it("the gates' refusal rules are found (the search is not empty)", () => {
    for (const r of ["mode.discuss.read-only", "policy.readonly", "jail.sensitive", "jail.outside-workspace", "guard.destruction", "validation.schema", "sql.write"]) assert.include(rules, r)
  })

  it("for every rule and front end, a remedy (or the reason already says it)", () => {
    for (const rule of rules) {
      for (const front of ["cli", "serve", "api"] as const) {
        const how = Remedy.remedy({ tool: "write_file", stage: stageOf(rule), rule, reason: "…" }, front)
        if (toldInReason.has(rule)) assert.isUndefined(how, rule)
        else assert.isTrue(how !== undefined && how.length > 20, `${rule} (${front}) has no remedy`)
      }
    }
  })

  it("mcp serve is told its own flags and config keys, never the CLI's; the CLI is never told to restart mcp serve", () => {
    for (const rule of rules) {
      const refusal = { tool: "write_file", stage: stageOf(rule), rule, reason: "…" }
      const serve = Remedy.remedy(refusal, "serve") ?? ""
      const cli = Remedy.remedy(refusal, "cli") ?? ""
      assert.notMatch(serve, /--work-mode|--policy|--permission-mode|minicode tool /, rule)
      assert.notMatch(cli, /mcp serve/, rule)
    }
  })

  it("names the one change: the work mode, the policy, the allowlist entry, the workspace; a secret is refused by design", () => {
    const r = (rule: string, allow?: string) => ({ tool: "write_file", stage: stageOf(rule), rule, reason: "…", ...(allow === undefined ? {} : { allow }) })
    assert.include(Remedy.remedy(r("mode.discuss.read-only"), "cli"), "--work-mode BUILD")
    assert.include(Remedy.remedy(r("mode.discuss.read-only"), "cli"), '"workMode": "BUILD"')
    assert.include(Remedy.remedy(r("policy.readonly"), "serve"), "--allow-all")
    assert.include(Remedy.remedy(r("policy.allowlist.no-match", 'add "write_file" to the allowlist'), "cli"), 'add "write_file" to the allowlist')
    assert.include(Remedy.remedy(r("jail.outside-workspace"), "cli"), "--cwd DIR")
    assert.include(Remedy.remedy(r("jail.outside-workspace"), "serve"), "restart minicode mcp serve with --cwd")
    assert.include(Remedy.remedy(r("jail.sensitive"), "cli"), "by design")
    assert.include(Remedy.remedy(r("validation.schema"), "cli"), "`minicode tool write_file --help`")
    assert.strictEqual(
      Remedy.told({ tool: "read_file", stage: "jail", rule: "jail.url-path", reason: "a URL is not a path" }, "cli"),
      "read_file denied by jail (jail.url-path): a URL is not a path\nTo proceed: name the file by its path in the workspace, with / between folders."
    )
  })
})
