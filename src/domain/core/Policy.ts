/**
 * The permission gate, pure: work mode (a ceiling), access policy and permission mode decide allow / deny / ask
 * for a decoded call. Jail, guard and validation come after it; nothing here looks at the disk.
 */
import * as Allowlist from "./Allowlist.js"
import * as D from "./Decision.js"
import type { AccessPolicy, PermissionMode, WorkMode } from "./Modes.js"
import * as P from "../jail/PosixPath.js"
import { approvalName, type Facts, nameOf } from "./Tools.js"

export interface PermissionContext {
  readonly root: string
  readonly workMode: WorkMode
  readonly permissionMode: PermissionMode
  /** No policy named: the product default (writes in the jail, bash through the guard, gated tools ask). */
  readonly policy?: AccessPolicy | undefined
  readonly allowlist: ReadonlyArray<Allowlist.AllowEntry>
  /** The configuration permits `bash` with `network: true` without asking, in permission mode AUTO. */
  readonly bashNetwork?: boolean | undefined
  /**
   * In permission mode AUTO, each bash command asks (file edits inside the jail still do not): `mcp serve`'s default
   * with a client that can ask the user. A command whose every part matches a saved `bash:` entry runs unasked
   * (the guard checks argv).
   */
  readonly bashAsks?: boolean | undefined
}

const planDirs = new Set(["plans", ".plans", "plan"])
const planFile = /^(plan|plans)([-_.][^/]*)?\.(md|markdown|txt)$/i

/** Plan artefacts: `PLAN.md`, `plan-<topic>.md`, `*.plan.md`, or markdown/text files under a `plans/` folder. */
export const isPlanArtefact = (relative: string): boolean => {
  const segs = P.segments(relative)
  const name = segs[segs.length - 1] ?? ""
  if (segs.includes("..")) return false
  if (planFile.test(name) || /\.plan\.(md|markdown)$/i.test(name)) return true
  return /\.(md|markdown|txt)$/i.test(name) && segs.slice(0, -1).some((s) => planDirs.has(s.toLowerCase()))
}

const planTools = new Set(["write_file", "edit_file", "move_file", "delete_file"])

const relativePaths = (ctx: PermissionContext, facts: Facts) =>
  facts.paths.map((p) => {
    const abs = P.resolve(ctx.root, p.path)
    return P.isInside(ctx.root, abs) ? P.relative(ctx.root, abs) : abs
  })

/** Writes only to plan artefacts: the one kind of mutation PLAN allows. */
const onlyPlanArtefacts = (ctx: PermissionContext, facts: Facts) =>
  planTools.has(facts.call.tool) &&
  facts.paths.length > 0 &&
  facts.paths.every((p) => p.access === "read" || isPlanArtefact(P.relative(ctx.root, P.resolve(ctx.root, p.path))))

/** A read that changes nothing anywhere: file reads, searches, git reads, web GETs. */
const isPureRead = (facts: Facts) => !facts.mutates && (facts.capability === "read" || facts.capability === "network")

const savedApproval = (ctx: PermissionContext, facts: Facts): boolean => {
  if (facts.call.tool === "bash") return false // bash approvals are matched on argv by the guard
  const name = approvalName(facts.call)
  const paths = relativePaths(ctx, facts)
  return ctx.allowlist.some((e) => Allowlist.matchesCall(e, name, paths))
}

const describe = (facts: Facts) => {
  const name = nameOf(facts.call)
  switch (facts.capability) {
    case "read":
      return `${name} reads`
    case "write":
      return `${name} writes`
    case "exec":
      return `${name} runs a program`
    case "network":
      return facts.mutates ? `${name} sends data over the network` : `${name} reads from the network`
    case "external":
      return `${name} calls an external server`
  }
}

const ceiling = (ctx: PermissionContext, facts: Facts): D.Decision | undefined => {
  const readLike = isPureRead(facts) || (facts.capability === "external" && !facts.mutates)
  switch (ctx.workMode) {
    case "DISCUSS":
      return readLike
        ? undefined
        : D.deny("permission", "mode.discuss.read-only", `work mode DISCUSS is read-only, and ${describe(facts)}`)
    case "PLAN":
      return readLike || onlyPlanArtefacts(ctx, facts)
        ? undefined
        : D.deny(
            "permission",
            "mode.plan.artefacts-only",
            `work mode PLAN allows reads and plan artefacts (PLAN.md, plans/*.md) only, and ${describe(facts)}`
          )
    case "BUILD":
    case "EXECUTE":
      return undefined
  }
}

export const evaluate = (ctx: PermissionContext, facts: Facts): D.Decision => {
  const capped = ceiling(ctx, facts)
  if (capped !== undefined) return capped
  const name = nameOf(facts.call)
  const read = isPureRead(facts)
  switch (ctx.policy) {
    case "unrestricted":
      return D.allow("permission", "policy.unrestricted", "policy unrestricted allows every call the jail admits")
    case "readonly":
      return read && !facts.gated
        ? D.allow("permission", "policy.readonly.read", `${name} only reads`)
        : D.deny("permission", "policy.readonly", `policy readonly allows reads only, and ${describe(facts)}`)
    case "plan":
      if (read && !facts.gated) return D.allow("permission", "policy.plan.read", `${name} only reads`)
      return !facts.gated && onlyPlanArtefacts(ctx, facts)
        ? D.allow("permission", "policy.plan.artefact", "policy plan allows writing plan artefacts")
        : D.deny("permission", "policy.plan", `policy plan allows reads and plan artefacts only, and ${describe(facts)}`)
    case "allowlist":
      if (read && !facts.gated) return D.allow("permission", "policy.allowlist.read", `${name} only reads`)
      if (facts.call.tool === "git_push") return D.deny("permission", "policy.allowlist.push", "git_push is never allowed under policy allowlist")
      if (facts.scope === "mcp" && facts.gated) {
        return D.deny("permission", "policy.allowlist.mcp", `policy allowlist denies MCP server calls, and ${describe(facts)}`)
      }
      if (facts.call.tool === "bash") {
        return D.allow("permission", "policy.allowlist.bash", "bash runs only if every command matches an allowlist entry (checked by the guard)")
      }
      return savedApproval(ctx, facts)
        ? D.allow("permission", "policy.allowlist.match", `${name} matches an allowlist entry`)
        : D.deny("permission", "policy.allowlist.no-match", `policy allowlist: no entry allows ${name}`)
    case "allow-all":
      return D.allow("permission", read ? "policy.read" : "policy.allow-all", read ? `${name} only reads` : "policy allow-all answers yes (jail, guard and validation still apply)")
    case undefined: {
      if (read && !facts.gated) return D.allow("permission", "policy.read", `${name} only reads`)
      if (savedApproval(ctx, facts)) return D.allow("permission", "allowlist.saved", `${name} was approved before (allowlist)`)
      if (facts.gated) return D.ask("permission", "policy.gated", `${name} needs the operator's approval`)
      if (facts.capability === "network" && facts.call.tool === "bash") {
        return ctx.permissionMode === "AUTO" && ctx.bashNetwork === true
          ? D.allow("permission", "policy.bash-network.configured", "the configuration permits network for bash in permission mode AUTO")
          : D.ask("permission", "policy.bash-network", "bash with network access needs the operator's approval")
      }
      if (ctx.permissionMode === "AUTO" && ctx.bashAsks === true && facts.call.tool === "bash") {
        return D.ask("permission", "mode.bash-asks", "this session asks before each bash command (file edits inside the workspace do not ask)")
      }
      return ctx.permissionMode === "ASK"
        ? D.ask("permission", "mode.ask", `permission mode ASK: ${describe(facts)}, which needs approval`)
        : D.allow("permission", "mode.auto", `permission mode AUTO allows this inside the jail`)
    }
  }
}
