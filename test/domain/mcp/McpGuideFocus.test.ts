import { describe, expect, it } from "vitest"
import * as Guide from "../../../src/domain/mcp/McpGuide.js"
import * as Scopes from "../../../src/domain/mcp/McpScopes.js"

const settings: Scopes.Settings = { levels: { ...Scopes.defaults, sql: "off" }, allTools: false, allowAll: false }

describe("the guide's focus", () => {
  it("completes scopes by prefix, case-insensitively, in the scopes' order", () => {
    expect(Guide.completeFocus("")).toEqual(Scopes.scopes)
    expect(Guide.completeFocus("S")).toEqual(["search", "shell", "sql"])
    expect(Guide.completeFocus("x")).toEqual([])
  })

  it("names the scope's level and its listed tools, says a scope is off, refuses a name that is no scope", () => {
    expect(Guide.focusedGuide(settings, undefined)).toBe(Guide.instructions(settings))
    expect(Guide.focusedGuide(settings, "git")).toMatch(/\nFocus: git \(level read\)\. Its tools here: git_status, git_diff, git_log, git_show\.$/)
    expect(Guide.focusedGuide(settings, "sql")).toMatch(/Focus: sql\. This scope is off in this session \(--scope sql=read or =write turns it on\)/)
    expect(Guide.focusedGuide(settings, "nope")).toBeUndefined()
  })
})
