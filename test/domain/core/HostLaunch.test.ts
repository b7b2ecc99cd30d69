import { describe, expect, it } from "vitest"
import * as HostLaunch from "../../../src/domain/core/HostLaunch.js"

describe("HostLaunch.onHost", () => {
  it("points npx and npm exec/x at a local project no repository controls", () => {
    expect(HostLaunch.onHost(["npx", "-y", "pkg", "."])).toEqual(["npx", "--prefix", "/", "-y", "pkg", "."])
    expect(HostLaunch.onHost(["/usr/bin/npx", "pkg"])).toEqual(["/usr/bin/npx", "--prefix", "/", "pkg"])
    expect(HostLaunch.onHost(["npm", "exec", "-y", "--", "pkg"])).toEqual(["npm", "exec", "--prefix", "/", "-y", "--", "pkg"])
    expect(HostLaunch.onHost(["npm", "x", "pkg"])).toEqual(["npm", "x", "--prefix", "/", "pkg"])
  })
  it("leaves every other command as configured", () => {
    for (const argv of [["node", "server.js"], ["npm", "run", "mcp"], ["uvx", "mcp-server-git"], ["docker", "run", "x"], []]) {
      expect(HostLaunch.onHost(argv)).toEqual(argv)
    }
  })
})
