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
    for (const argv of [["node", "server.js"], ["npm", "run", "mcp"], ["uvx", "mcp-server-git"], ["docker", "run", "x"], ["deno", "run", "--config", "d.json", "s.ts"], []]) {
      expect(HostLaunch.onHost(argv)).toEqual(argv)
    }
  })
  it("a Python module run gets PYTHONSAFEPATH (the workspace is not first on its module path)", () => {
    expect(HostLaunch.envOnHost(["python3", "-m", "mcp_server_git"], { A: "1" })).toEqual({ A: "1", PYTHONSAFEPATH: "1" })
    expect(HostLaunch.envOnHost(["/usr/bin/python3.12", "-m", "x"], {})).toEqual({ PYTHONSAFEPATH: "1" })
    expect(HostLaunch.envOnHost(["python3", "server.py"], {})).toEqual({})
    expect(HostLaunch.envOnHost(["node", "-m"], {})).toEqual({})
  })
  it("yarn reads no rc file (yarnPath, plugins), uv no project config, deno no deno.json", () => {
    expect(HostLaunch.envOnHost(["yarn", "dlx", "pkg"], {})).toEqual({ YARN_RC_FILENAME: HostLaunch.ignoredYarnRc, YARN_IGNORE_PATH: "1" })
    expect(HostLaunch.envOnHost(["/usr/bin/uvx", "mcp-server-git"], { A: "1" })).toEqual({ A: "1", UV_NO_CONFIG: "1" })
    expect(HostLaunch.envOnHost(["uvx", "x"], { UV_NO_CONFIG: "0" })).toEqual({ UV_NO_CONFIG: "0" })
    expect(HostLaunch.onHost(["deno", "run", "-A", "npm:pkg"])).toEqual(["deno", "run", "--no-config", "-A", "npm:pkg"])
  })
})
