/**
 * End to end: the workspace's README and its repo map as resources, read through the chain (the jail and the
 * secret rules apply as to read_file), with the built binary and the SDK client.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, serversOn } from "./support/McpServeHarness.js"

beforeAll(() => ensureBuilt(), 120_000)
const start = serversOn()

describe("mcp serve resources", () => {
  it("lists the README and the repo map, and reads them as text", async () => {
    const { client } = await start({ "README.md": "# Demo\n\nline two\n", "src/app.ts": "export function greet(name: string) { return name }\n" })
    expect(client.getServerCapabilities()?.resources).toBeDefined()
    const listed = (await client.listResources()).resources.map((r) => r.uri)
    expect(listed).toEqual(["minicode://workspace/README.md", "minicode://repo-map"])
    const readme = await client.readResource({ uri: "minicode://workspace/README.md" })
    expect(readme.contents).toEqual([{ uri: "minicode://workspace/README.md", mimeType: "text/markdown", text: "# Demo\n\nline two" }])
    const map = await client.readResource({ uri: "minicode://repo-map" })
    expect(JSON.stringify(map.contents)).toContain("greet")
  })

  it("no README: only the repo map; reads go through the jail (outside, secrets, unknown URIs are errors)", async () => {
    const { client } = await start({ ".env": "SECRET=1\n", "a.txt": "a\n" })
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["minicode://repo-map"])
    for (const uri of ["minicode://workspace/../outside.txt", "minicode://workspace/.env", "minicode://workspace/%2e%2e/outside.txt", "file:///etc/passwd", "minicode://nope"]) {
      await expect(client.readResource({ uri }), uri).rejects.toThrow()
    }
    expect((await client.readResource({ uri: "minicode://workspace/a.txt" })).contents).toEqual([{ uri: "minicode://workspace/a.txt", mimeType: "text/plain", text: "a" }])
  })

  it("a scope that is off is off for resources too", async () => {
    const { client } = await start({ "README.md": "# x\n" }, ["--scope", "files=off"])
    await expect(client.readResource({ uri: "minicode://workspace/README.md" })).rejects.toThrow(/scope/)
  })
})
