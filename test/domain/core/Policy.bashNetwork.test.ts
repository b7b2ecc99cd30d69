/**
 * `bash {network: true}` is a separate permission: denied by readonly/plan (and the DISCUSS/PLAN work modes), asked
 * in ASK, allowed under AUTO only when the configuration permits network for bash; everything else unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { AccessPolicy, PermissionMode, WorkMode } from "../../../src/domain/core/Modes.js"
import * as Policy from "../../../src/domain/core/Policy.js"
import * as Tools from "../../../src/domain/core/Tools.js"

const factsOf = (args: Record<string, unknown>) => Tools.facts(Either.getOrThrow(Tools.decode("bash", args)))
const withNet = factsOf({ command: "npm install", network: true })
const noNet = factsOf({ command: "npm install" })

const ctx = (over: Partial<Policy.PermissionContext>): Policy.PermissionContext => ({
  root: "/ws",
  workMode: "BUILD",
  permissionMode: "AUTO",
  allowlist: [],
  ...over
})

const arbs = {
  workMode: FastCheck.constantFrom(...WorkMode.literals),
  permissionMode: FastCheck.constantFrom(...PermissionMode.literals),
  policy: FastCheck.constantFrom(undefined, ...AccessPolicy.literals),
  bashNetwork: FastCheck.constantFrom(undefined, false, true)
}

describe("Policy: bash with network", () => {
  it("default policy: AUTO allows only when configured; ASK always asks", () => {
    assert.strictEqual(Policy.evaluate(ctx({}), withNet).decision, "ask")
    assert.strictEqual(Policy.evaluate(ctx({ bashNetwork: false }), withNet).decision, "ask")
    const allowed = Policy.evaluate(ctx({ bashNetwork: true }), withNet)
    assert.strictEqual(allowed.decision, "allow")
    assert.strictEqual(allowed.rule, "policy.bash-network.configured")
    assert.strictEqual(Policy.evaluate(ctx({ permissionMode: "ASK", bashNetwork: true }), withNet).decision, "ask")
  })

  it.prop("readonly and plan policies, and the DISCUSS/PLAN work modes, deny it whatever the configuration", arbs, (a) => {
    const d = Policy.evaluate(ctx(a), withNet)
    if (a.policy === "readonly" || a.policy === "plan" || a.workMode === "DISCUSS" || a.workMode === "PLAN") {
      assert.strictEqual(d.decision, "deny")
    }
  })

  it.prop("without a policy it is never allowed unless AUTO and configured", arbs, (a) => {
    if (a.policy !== undefined || a.workMode === "DISCUSS" || a.workMode === "PLAN") return
    const d = Policy.evaluate(ctx(a), withNet)
    assert.strictEqual(d.decision, a.permissionMode === "AUTO" && a.bashNetwork === true ? "allow" : "ask")
  })

  it.prop("bashNetwork changes nothing for bash without network, nor for other policies", arbs, (a) => {
    const on = ctx({ ...a, bashNetwork: true })
    const off = ctx({ ...a, bashNetwork: undefined })
    assert.deepStrictEqual(Policy.evaluate(on, noNet), Policy.evaluate(off, noNet))
    if (a.policy !== undefined) assert.deepStrictEqual(Policy.evaluate(on, withNet), Policy.evaluate(off, withNet))
  })
})
