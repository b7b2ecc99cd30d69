/**
 * Issue 46 item 7, end to end with the built binary and the SDK client: `completion/complete` for the
 * `minicode-guide` prompt's `focus` and the `minicode://workspace/{path}` template's `path` (listed through the
 * chain: a secret is never offered), and `resources/subscribe` for the repo map (a file the workspace gains sends
 * `notifications/resources/updated`; minicode's own state does not; nothing after unsubscribing).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, serversOn, sleep } from "./support/McpServeHarness.js"

beforeAll(() => ensureBuilt(), 120_000)
const start = serversOn()

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

describe("mcp serve completions and subscriptions", () => {
  it("completes the guide's focus and the file template's path; a secret is never offered", async () => {
    const { client } = await start({ "src/app.ts": "export const a = 1\n", "src/api/x.ts": "x\n", "scripts/run.sh": "echo\n", ".env": "SECRET=1\n", "README.md": "# r\n" })
    expect(client.getServerCapabilities()?.completions).toEqual({})
    const [prompt] = (await client.listPrompts()).prompts
    expect(prompt?.arguments).toEqual([expect.objectContaining({ name: "focus", required: false })])
    const focus = await client.complete({ ref: { type: "ref/prompt", name: "minicode-guide" }, argument: { name: "focus", value: "s" } })
    expect(focus.completion).toEqual({ values: ["search", "shell", "sql"], total: 3, hasMore: false })
    const guide = await client.getPrompt({ name: "minicode-guide", arguments: { focus: "lsp" } })
    expect(JSON.stringify(guide.messages)).toMatch(/Focus: lsp \(level read\)\. Its tools here: lsp_diagnostics, lsp_definition, .*lsp_incoming_calls/)
    await expect(client.getPrompt({ name: "minicode-guide", arguments: { focus: "nope" } })).rejects.toThrow(/unknown focus "nope": one of files, search/)

    const templates = (await client.listResourceTemplates()).resourceTemplates
    expect(templates.map((t) => t.uriTemplate)).toEqual(["minicode://workspace/{path}"])
    const complete = async (value: string) =>
      (await client.complete({ ref: { type: "ref/resource", uri: "minicode://workspace/{path}" }, argument: { name: "path", value } })).completion.values
    expect(await complete("s")).toEqual(["scripts/", "src/"])
    expect(await complete("src/a")).toEqual(["src/api/", "src/app.ts"])
    expect(await complete("")).not.toContain(".env")
    expect(await complete(".e")).toEqual([])
    expect(await complete("../")).toEqual([])
    expect(await complete("nowhere/x")).toEqual([])
    // The completed path reads.
    expect((await client.readResource({ uri: "minicode://workspace/src/app.ts" })).contents[0]).toMatchObject({ text: "export const a = 1" })
    await expect(client.complete({ ref: { type: "ref/resource", uri: "minicode://other/{x}" }, argument: { name: "x", value: "" } })).rejects.toThrow(/unknown resource template/)
    await expect(client.complete({ ref: { type: "ref/prompt", name: "minicode-guide" }, argument: { name: "topic", value: "" } })).rejects.toThrow(/has no argument "topic"/)
  })

  it("a subscriber to the repo map hears of a change in the workspace, not of minicode's own state, and nothing after unsubscribing", async () => {
    const { root, client } = await start({ "src/app.ts": "export function greet() {}\n" })
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true)
    const updates: Array<string> = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
    await expect(client.subscribeResource({ uri: "minicode://workspace/src/app.ts" })).rejects.toThrow(/offered for minicode:\/\/repo-map only/)
    await client.subscribeResource({ uri: "minicode://repo-map" })
    // minicode's own state (.minicode/, which every journaled call writes) is no change of the map.
    fs.mkdirSync(path.join(root, ".minicode"), { recursive: true })
    fs.writeFileSync(path.join(root, ".minicode", "scratch"), "state")
    await sleep(1_000)
    expect(updates).toEqual([])
    fs.writeFileSync(path.join(root, "src", "more.ts"), "export function wave() {}\n")
    await until("an update", () => updates.length > 0)
    expect(new Set(updates)).toEqual(new Set(["minicode://repo-map"]))
    expect(JSON.stringify((await client.readResource({ uri: "minicode://repo-map" })).contents)).toContain("wave")
    await client.unsubscribeResource({ uri: "minicode://repo-map" })
    await sleep(300)
    const before = updates.length
    fs.writeFileSync(path.join(root, "src", "later.ts"), "export const later = 1\n")
    await sleep(1_000)
    expect(updates.length).toBe(before)
  })
})
