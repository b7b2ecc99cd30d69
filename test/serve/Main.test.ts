import { describe, expect, it } from "vitest"
import { parseArgv } from "../../src/serve/Main.js"

describe("mcp serve fast path", () => {
  it("takes plainly well-formed flags, in any order and in --name=value form", () => {
    expect(parseArgv(["--cwd", "/w", "--allow-all", "--scope", "git=write", "--scope=shell=off", "--sandbox=none"])).toEqual({
      cwd: "/w",
      allowAll: true,
      allTools: false,
      scope: ["git=write", "shell=off"],
      sandbox: "none",
      allowLocalConfig: false
    })
    expect(parseArgv([])).toEqual({ cwd: undefined, allowAll: false, allTools: false, scope: [], sandbox: undefined, allowLocalConfig: false })
  })

  it("takes --ask, --no-ask and --ask-timeout SECONDS", () => {
    expect(parseArgv(["--ask"])).toMatchObject({ ask: true })
    expect(parseArgv(["--no-ask", "--ask-timeout", "5"])).toMatchObject({ ask: false, askTimeoutMs: 5_000 })
    expect(parseArgv(["--ask-timeout=120"])).toMatchObject({ ask: undefined, askTimeoutMs: 120_000 })
    for (const args of [["--ask", "--no-ask"], ["--ask-timeout", "0"], ["--ask-timeout", "1.5"], ["--ask-timeout"], ["--ask=yes"]]) {
      expect(parseArgv(args), args.join(" ")).toBeUndefined()
    }
  })

  it("sends anything unusual to the full CLI, which explains it", () => {
    for (const args of [["--help"], ["--bogus"], ["--cwd"], ["--sandbox", "maybe"], ["--allow-all=yes"], ["extra"], ["--scope"]]) {
      expect(parseArgv(args), args.join(" ")).toBeUndefined()
    }
  })
})
