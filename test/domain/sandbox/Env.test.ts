import { describe, expect, it } from "vitest"
import * as Env from "../../../src/domain/sandbox/Env.js"

describe("Env.allowed", () => {
  it("passes git's identity variables (their names hold AUTH) and still drops credentials", () => {
    for (const name of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"]) {
      expect(Env.allowed(name, { unrestricted: false }), name).toBe(true)
    }
    for (const name of ["GIT_AUTH_TOKEN", "AUTHORIZATION", "NPM_AUTH", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "NODE_OPTIONS", "GIT_AUTHOR_TOKEN"]) {
      expect(Env.allowed(name, { unrestricted: false }), name).toBe(false)
    }
  })
})
