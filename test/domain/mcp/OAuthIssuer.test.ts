import { describe, expect, it } from "vitest"
import * as OAuthIssuer from "../../../src/domain/mcp/OAuthIssuer.js"

describe("OAuthIssuer", () => {
  it("derives the issuer a metadata URL was built from (RFC 8414 insertion, OIDC insertion and appending)", () => {
    expect(OAuthIssuer.expectedIssuer("https://as.example/.well-known/oauth-authorization-server")).toBe("https://as.example")
    expect(OAuthIssuer.expectedIssuer("https://as.example/.well-known/oauth-authorization-server/tenant1")).toBe("https://as.example/tenant1")
    expect(OAuthIssuer.expectedIssuer("https://as.example/.well-known/openid-configuration/tenant1")).toBe("https://as.example/tenant1")
    expect(OAuthIssuer.expectedIssuer("https://as.example/tenant1/.well-known/openid-configuration")).toBe("https://as.example/tenant1")
    expect(OAuthIssuer.expectedIssuer("https://mcp.example/.well-known/oauth-protected-resource")).toBeUndefined()
    expect(OAuthIssuer.expectedIssuer("https://as.example/token")).toBeUndefined()
  })

  it("accepts only the issuer the URL was built from (a root issuer with or without its trailing slash)", () => {
    const url = "https://as.example/.well-known/oauth-authorization-server"
    expect(OAuthIssuer.metadataProblem(url, { issuer: "https://as.example" })).toBeUndefined()
    expect(OAuthIssuer.metadataProblem(url, { issuer: "https://as.example/" })).toBeUndefined()
    expect(OAuthIssuer.metadataProblem(url, { issuer: "https://evil.example" })).toContain("RFC 8414")
    // At an origin's root, an issuer with a path on the same origin is that server's (2025-03-26 servers).
    expect(OAuthIssuer.metadataProblem(url, { issuer: "https://as.example/other" })).toBeUndefined()
    expect(OAuthIssuer.metadataProblem(url, { issuer: "https://as.example.evil/other" })).toContain("not used")
    expect(OAuthIssuer.metadataProblem(url, {})).toContain("names no issuer")
    const tenant = "https://as.example/.well-known/oauth-authorization-server/t1"
    expect(OAuthIssuer.metadataProblem(tenant, { issuer: "https://as.example/t1" })).toBeUndefined()
    expect(OAuthIssuer.metadataProblem(tenant, { issuer: "https://as.example/t1/" })).toContain("not used")
    expect(OAuthIssuer.metadataProblem(tenant, { issuer: "https://as.example" })).toContain("not used")
  })

  it("judges the authorization response's iss (RFC 9207)", () => {
    const as = { issuer: "https://as.example", issParameter: false }
    expect(OAuthIssuer.responseProblem(as, null)).toBeUndefined()
    expect(OAuthIssuer.responseProblem(as, "https://as.example")).toBeUndefined()
    expect(OAuthIssuer.responseProblem(as, "https://as.example/")).toContain("RFC 9207")
    expect(OAuthIssuer.responseProblem(as, "HTTPS://as.example")).toContain("RFC 9207")
    expect(OAuthIssuer.responseProblem(as, "https://as.example:443")).toContain("RFC 9207")
    expect(OAuthIssuer.responseProblem(as, "https://evil.example")).toContain("RFC 9207")
    expect(OAuthIssuer.responseProblem({ ...as, issParameter: true }, null)).toContain("has no iss parameter")
    expect(OAuthIssuer.responseProblem(undefined, null)).toBeUndefined()
  })
})
