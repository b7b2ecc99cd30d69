/**
 * A real OAuth-protected MCP server on 127.0.0.1, built from the SDK's server-side auth helpers: an authorization
 * server (mcpAuthRouter: metadata, dynamic registration, authorize with PKCE, token) and a resource server
 * (protected-resource metadata, bearer check bound to the resource) serving one `echo` tool over Streamable HTTP.
 * The authorize step approves at once and redirects, so an HTTP client following the URL plays the browser.
 * With `{ stepUp: true }` every request needs scope mcp:tools (the 401 says so) and a tools/call also mcp:write
 * (a 403 insufficient_scope naming both): a step-up. `metadataIssuer` makes the metadata name another issuer,
 * `issSupported` advertises RFC 9207's iss parameter, `responseIss` adds one to the authorize redirect ("self": the
 * real issuer; null: none).
 */
import express from "express"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { mcpAuthMetadataRouter, mcpAuthRouter, createOAuthMetadata, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js"
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js"
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js"
import { z } from "zod"

const listen = (app) =>
  new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s))
  })

export const start = async (options = {}) => {
  const scopes = options.stepUp === true ? ["mcp:tools", "mcp:write"] : ["mcp:tools"]
  const resources = []
  const provider = new DemoInMemoryAuthProvider((resource) => {
    resources.push(resource?.href ?? "")
    return resource !== undefined
  })
  const asApp = express()
  asApp.use(express.json())
  asApp.use(express.urlencoded())
  // The AS needs its own URL before it listens: listen first, then mount.
  const asServer = await listen(asApp)
  const asUrl = new URL(`http://127.0.0.1:${asServer.address().port}`)
  const registrations = []
  asApp.post("/register", (req, _res, next) => {
    registrations.push(req.body)
    next()
  })
  // A hostile or mixed-up authorization server: metadata naming another issuer, an iss on the redirect (RFC 9207).
  if (options.metadataIssuer !== undefined || options.issSupported === true) {
    asApp.get("/.well-known/oauth-authorization-server", (_req, res) => {
      const metadata = createOAuthMetadata({ provider, issuerUrl: asUrl, scopesSupported: scopes })
      res.json({ ...metadata, ...(options.metadataIssuer === undefined ? {} : { issuer: options.metadataIssuer }), ...(options.issSupported === true ? { authorization_response_iss_parameter_supported: true } : {}) })
    })
  }
  if (options.responseIss !== undefined) {
    asApp.use("/authorize", (_req, res, next) => {
      const redirect = res.redirect.bind(res)
      res.redirect = (...args) => {
        const to = new URL(String(args[args.length - 1]))
        if (options.responseIss !== null) to.searchParams.set("iss", options.responseIss === "self" ? asUrl.href : options.responseIss)
        return args.length > 1 ? redirect(args[0], to.href) : redirect(to.href)
      }
      next()
    })
  }
  asApp.use(mcpAuthRouter({ provider, issuerUrl: asUrl, scopesSupported: scopes }))

  const rsApp = express()
  rsApp.use(express.json())
  const rsServer = await listen(rsApp)
  const mcpUrl = new URL(`http://127.0.0.1:${rsServer.address().port}/mcp`)
  const oauthMetadata = createOAuthMetadata({ provider, issuerUrl: asUrl, scopesSupported: scopes })
  rsApp.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: mcpUrl, scopesSupported: scopes, resourceName: "test" }))
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl)
  const bearer = requireBearerAuth({ verifier: provider, requiredScopes: options.stepUp === true ? ["mcp:tools"] : [], resourceMetadataUrl })
  const writer = requireBearerAuth({ verifier: provider, requiredScopes: scopes, resourceMetadataUrl })
  const gate = (req, res, next) => (options.stepUp === true && req.body?.method === "tools/call" ? writer : bearer)(req, res, next)
  rsApp.all("/mcp", gate, async (req, res) => {
    const server = new McpServer({ name: "secure", version: "1.0.0" })
    server.registerTool("echo", { description: "Echo.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `secure echo: ${text}` }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on("close", () => void transport.close())
    await server.connect(transport)
    await transport.handleRequest(req, res, req.body)
  })
  return {
    url: mcpUrl.href,
    resources,
    registrations,
    close: async () => {
      for (const s of [asServer, rsServer]) {
        s.closeAllConnections()
        await new Promise((r) => s.close(() => r()))
      }
    }
  }
}
