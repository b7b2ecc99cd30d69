/** The MCP tools and web_fetch through the whole chain: gates (policy, SSRF guard), executor extension, journal. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../../src/adapters/approval/MemoryAllowlist.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as NetGuard from "../../src/adapters/net/NetGuard.js"
import type { AccessPolicy, PermissionMode } from "../../src/domain/core/Modes.js"
import { Allowlist } from "../../src/ports/Allowlist.js"
import type { Answer } from "../../src/ports/Approver.js"
import { Journal } from "../../src/ports/Journal.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as McpLive from "../../src/app/McpLive.js"
import * as Runner from "../../src/kernel/Runner.js"
import { nodeAdapters } from "../support/Adapters.js"

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mcptools-"))
const tiny = path.resolve(import.meta.dirname, "../support/stdio-server.mjs")
const noDns: NetGuard.Resolver = () => Promise.reject(new Error("ENOTFOUND"))
const publicDns: NetGuard.Resolver = () => Promise.resolve([{ address: "93.184.215.14", family: 4 }])

const adapters = (over: Partial<Kernel.Adapters> = {}, answer: Answer = "no"): Kernel.Adapters =>
  nodeAdapters({ approver: Approvers.constant(answer), netGuard: NetGuard.layerWith(noDns), ...over })

const explain = (tool: string, args: unknown, opts: { policy?: AccessPolicy; permissionMode?: PermissionMode; resolve?: NetGuard.Resolver; allow?: ReadonlyArray<{ tool: string }> } = {}) =>
  Runner.explain(
    { tool, args },
    Kernel.gatesLayer(
      { workspace, workMode: "BUILD", policy: opts.policy, permissionMode: opts.permissionMode },
      adapters({ netGuard: NetGuard.layerWith(opts.resolve ?? noDns), allowlist: MemoryAllowlist.layer(opts.allow ?? []) })
    )
  )

describe("policy explain", () => {
  const web: ReadonlyArray<readonly [string, string, string]> = [
    ["http://127.0.0.1/", "deny", "guard"],
    ["http://[::ffff:127.0.0.1]/", "deny", "guard"],
    ["http://2130706433/", "deny", "guard"],
    ["file:///etc/passwd", "deny", "guard"],
    ["http://169.254.169.254/", "deny", "guard"],
    ["https://93.184.215.14/", "allow", "guard"],
    ["https://example.com/", "deny", "guard"]
  ]
  for (const [url, expect, stage] of web) {
    it.effect(`web_fetch ${url} → ${expect} (${stage}), in every policy`, () =>
      Effect.gen(function* () {
        for (const policy of [undefined, "readonly", "plan", "allowlist", "allow-all"] as const) {
          const d = yield* explain("web_fetch", { url }, policy === undefined ? {} : { policy })
          assert.strictEqual(d.decision, expect, `${policy ?? "default"}: ${d.reason}`)
          assert.strictEqual(d.stage, stage)
        }
      })
    )
  }
  it.effect("web_fetch resolves names as the real call would", () =>
    Effect.gen(function* () {
      const d = yield* explain("web_fetch", { url: "https://example.com/" }, { resolve: publicDns })
      assert.deepInclude(d, { decision: "allow", stage: "guard", rule: "net.public" })
    })
  )

  it.effect("MCP calls are gated: ask under AUTO/ASK, deny under readonly/plan/allowlist, allow under allow-all; mcp_list is not gated", () =>
    Effect.gen(function* () {
      for (const [tool, args] of [["mcp_call", { server: "fs", tool: "write_file" }], ["fs.write_file", {}], ["mcp_read", { server: "fs", uri: "x://y" }], ["mcp_prompt", { server: "fs", name: "p" }]] as const) {
        assert.strictEqual((yield* explain(tool, args)).decision, "ask", tool)
        assert.strictEqual((yield* explain(tool, args, { permissionMode: "ASK" })).decision, "ask", tool)
        for (const policy of ["readonly", "plan", "allowlist"] as const) assert.strictEqual((yield* explain(tool, args, { policy, allow: [{ tool: "fs.write_file" }] })).decision, "deny", `${tool} ${policy}`)
        assert.strictEqual((yield* explain(tool, args, { policy: "allow-all" })).decision, "allow", tool)
      }
      assert.strictEqual((yield* explain("mcp_list", {})).decision, "allow")
      assert.strictEqual((yield* explain("mcp_list", {}, { policy: "readonly" })).decision, "allow")
      // A saved approval is for that exact server+tool, whichever way the tool is called; never a wildcard.
      assert.strictEqual((yield* explain("fs.write_file", {}, { allow: [{ tool: "fs.write_file" }] })).decision, "allow")
      assert.strictEqual((yield* explain("mcp_call", { server: "fs", tool: "write_file" }, { allow: [{ tool: "fs.write_file" }] })).decision, "allow")
      assert.strictEqual((yield* explain("fs.delete", {}, { allow: [{ tool: "fs.write_file" }, { tool: "fs" }, { tool: "fs.*" }, { tool: "mcp_call" }] })).decision, "ask")
      assert.strictEqual((yield* explain("mcp_read", { server: "fs", uri: "a" }, { allow: [{ tool: "mcp_read" }] })).decision, "ask")
    })
  )
})

describe("the chain over the real extension", () => {
  const servers = { tiny: { command: process.execPath, args: [tiny] } }
  it.live("a dynamic call runs once approved, 'always' saves server.tool, the journal records it as remote", () =>
    Effect.gen(function* () {
      const { journal } = yield* MemoryJournal.make()
      const allowlist = yield* MemoryAllowlist.make()
      const extension = yield* McpLive.live({ servers, env: process.env })
      const layer = Kernel.layer(
        { workspace, workMode: "BUILD" },
        adapters({ journal: Layer.succeed(Journal, journal), allowlist: Layer.succeed(Allowlist, allowlist), extensions: Kernel.extensionsOf([extension]) }, "always")
      )
      const out = yield* Runner.invoke({ tool: "tiny.echo", args: { text: "via chain" } }).pipe(Effect.provide(layer))
      assert.strictEqual(out.text, "via chain")
      assert.deepStrictEqual(yield* allowlist.entries, [{ tool: "tiny.echo" }])
      const listed = yield* Runner.invoke({ tool: "mcp_list", args: {} }).pipe(Effect.provide(layer))
      assert.include(listed.text, "tiny: 5 tools, 0 resources, 0 prompts")
      const records = yield* journal.list()
      assert.deepStrictEqual(records.map((r) => [r.tool, r.remote, r.state]), [["tiny.echo", true, "committed"]])
    }).pipe(Effect.scoped)
  )

  it.live("without approval (no TTY) an MCP call is denied before any server is spawned", () =>
    Effect.gen(function* () {
      const extension = yield* McpLive.live({ servers: { tiny: { command: "/nonexistent/should-not-spawn" } } })
      const r = yield* Runner.invoke({ tool: "mcp_call", args: { server: "tiny", tool: "echo", arguments: { text: "x" } } }).pipe(
        Effect.provide(Kernel.layer({ workspace, workMode: "BUILD" }, adapters({ extensions: Kernel.extensionsOf([extension]) }, "no"))),
        Effect.either
      )
      assert.isTrue(r._tag === "Left" && r.left._tag === "ToolDenied" && r.left.rule === "approval.declined")
    }).pipe(Effect.scoped)
  )

  it.live("an interrupted remote call is journaled unknown", () =>
    Effect.gen(function* () {
      const { journal } = yield* MemoryJournal.make()
      const extension = yield* McpLive.live({ servers: { tiny: { command: process.execPath, args: [tiny] } } })
      const layer = Kernel.layer({ workspace, workMode: "BUILD", policy: "allow-all" }, adapters({ journal: Layer.succeed(Journal, journal), extensions: Kernel.extensionsOf([extension]) }))
      const fiber = yield* Effect.fork(Runner.invoke({ tool: "mcp_call", args: { server: "tiny", tool: "slow" } }).pipe(Effect.provide(layer)))
      yield* Effect.sleep("800 millis")
      yield* Fiber.interrupt(fiber)
      const records = yield* journal.list()
      assert.strictEqual(records[0]?.state, "unknown")
      assert.match(records[0]?.note ?? "", /may already have acted/)
    }).pipe(Effect.scoped)
  )
})
