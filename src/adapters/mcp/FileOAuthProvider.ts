/**
 * The SDK's OAuthClientProvider over one file per server in the config folder (`<config>/mcp-auth/ID.json`, mode
 * 600, folder 700): the client registration (dynamic, or the pre-registered client id), tokens, the PKCE verifier
 * and the discovery state (the metadata URLs and documents found, so a custom protected-resource metadata location
 * is not lost between the two halves of a sign-in). When a running session is told to sign in again (expired
 * tokens, or a 403 asking for more scope), the scope it was asked for is kept as `wantedScope`, and the next
 * `config mcp login` asks for it. Tokens are bound to the server URL they were issued for: a file for another URL
 * is never used. Nothing here prints a token. `onRedirect` decides what "go and sign in" means: the login command prints
 * the URL and opens a browser; a running session fails with "needs sign-in".
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js"
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js"
import {
  OAuthClientInformationFullSchema,
  OAuthClientInformationSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OpenIdProviderDiscoveryMetadataSchema,
  OAuthTokensSchema,
  type OAuthTokens,
  type AuthorizationServerMetadata
} from "@modelcontextprotocol/sdk/shared/auth.js"

interface Stored {
  readonly serverUrl: string
  readonly redirectUrl?: string
  readonly client?: OAuthClientInformationMixed
  readonly tokens?: OAuthTokens
  readonly verifier?: string
  readonly discovery?: OAuthDiscoveryState
  /** The scope a running session was last asked to sign in for (a step-up), until the next login. */
  readonly wantedScope?: string
  /** A Client ID Metadata Document URL (HTTPS), used as the client id where the authorization server supports it. */
  readonly clientMetadataUrl?: string
  /** "client_credentials": machine-to-machine, no browser; a session fetches new tokens itself. */
  readonly grant?: "client_credentials"
  /** private_key_jwt: the PEM (PKCS#8) file the client signs its assertions with (the path, never the key) and the algorithm. */
  readonly privateKeyFile?: string
  readonly signingAlg?: string
}

export const fileFor = (dir: string, id: string) => path.join(dir, "mcp-auth", `${id}.json`)

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** What is stored for `serverUrl`, or a fresh record when the file is absent, unreadable or for another URL. */
const read = (file: string, serverUrl: string): Stored => {
  const fresh: Stored = { serverUrl }
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
  if (text === undefined) return fresh
  const parsed: unknown = JSON.parse(text)
  if (!isRecord(parsed) || parsed["serverUrl"] !== serverUrl) return fresh
  // Each part is decoded with the SDK's own schema; a part that does not decode is as if absent.
  const tokens = OAuthTokensSchema.safeParse(parsed["tokens"])
  const client = OAuthClientInformationFullSchema.safeParse(parsed["client"])
  const plainClient = OAuthClientInformationSchema.safeParse(parsed["client"])
  const redirectUrl = parsed["redirectUrl"]
  const verifier = parsed["verifier"]
  const discovery = parsed["discovery"]
  const wantedScope = parsed["wantedScope"]
  const clientMetadataUrl = parsed["clientMetadataUrl"]
  const grant = parsed["grant"]
  const privateKeyFile = parsed["privateKeyFile"]
  const signingAlg = parsed["signingAlg"]
  return {
    serverUrl,
    ...(typeof redirectUrl === "string" ? { redirectUrl } : {}),
    ...(typeof verifier === "string" ? { verifier } : {}),
    ...(tokens.success ? { tokens: tokens.data } : {}),
    ...(client.success ? { client: client.data } : plainClient.success ? { client: plainClient.data } : {}),
    ...(typeof wantedScope === "string" ? { wantedScope } : {}),
    ...(typeof clientMetadataUrl === "string" ? { clientMetadataUrl } : {}),
    ...(grant === "client_credentials" ? { grant } : {}),
    ...(typeof privateKeyFile === "string" ? { privateKeyFile } : {}),
    ...(typeof signingAlg === "string" ? { signingAlg } : {}),
    ...(isRecord(discovery) && typeof discovery["authorizationServerUrl"] === "string" ? { discovery: discoveryOf(discovery, discovery["authorizationServerUrl"]) } : {})
  }
}

/** The stored discovery state: the URLs, and the metadata documents when they still decode with the SDK's schemas. */
const discoveryOf = (d: Readonly<Record<string, unknown>>, authorizationServerUrl: string): OAuthDiscoveryState => {
  const resourceMetadataUrl = d["resourceMetadataUrl"]
  const resource = OAuthProtectedResourceMetadataSchema.safeParse(d["resourceMetadata"])
  const server = OAuthMetadataSchema.safeParse(d["authorizationServerMetadata"])
  const openid = OpenIdProviderDiscoveryMetadataSchema.safeParse(d["authorizationServerMetadata"])
  return {
    authorizationServerUrl,
    ...(typeof resourceMetadataUrl === "string" ? { resourceMetadataUrl } : {}),
    ...(resource.success ? { resourceMetadata: resource.data } : {}),
    ...(server.success ? { authorizationServerMetadata: server.data } : openid.success ? { authorizationServerMetadata: openid.data } : {})
  }
}

const write = (file: string, stored: Stored) => {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: "w" })
  fs.chmodSync(tmp, 0o600)
  fs.renameSync(tmp, file)
}

export interface ProviderOptions {
  readonly file: string
  readonly serverUrl: string
  /** The loopback callback of a login; a running session uses the one stored at login. */
  readonly redirectUrl?: string
  /** A pre-registered client (no dynamic registration). */
  readonly clientId?: string
  readonly clientSecret?: string
  readonly scope?: string
  /** A Client ID Metadata Document URL (kept in the file, so a session's re-authorization uses it too). */
  readonly clientMetadataUrl?: string
  /** The client_credentials grant (with clientId and clientSecret): no redirect, tokens straight from the token endpoint. */
  readonly clientCredentials?: boolean
  /** …or with clientId and a signed assertion (private_key_jwt): the PEM file and its algorithm (default ES256). */
  readonly privateKeyFile?: string
  readonly signingAlg?: string
  /** Stored tokens are not offered (they are kept until new ones are saved): the flow authorizes afresh. */
  readonly freshTokens?: boolean
  readonly state?: () => string
  readonly onRedirect: (url: URL) => void | Promise<void>
}

export const hasTokens = (file: string, serverUrl: string): boolean => fs.existsSync(file) && read(file, serverUrl).tokens !== undefined

/** The redirect URIs of a dynamically registered client (none for a pre-registered or URL-based client id). */
export const registeredRedirects = (file: string, serverUrl: string): ReadonlyArray<string> => {
  const client = fs.existsSync(file) ? read(file, serverUrl).client : undefined
  return client !== undefined && "redirect_uris" in client && Array.isArray(client.redirect_uris) ? client.redirect_uris.map(String) : []
}

/** Forgets the client registration (the next sign-in registers again). */
export const forgetClient = (file: string, serverUrl: string) => {
  const { client: _c, ...rest } = read(file, serverUrl)
  write(file, rest)
}

/** The scope a running session was asked to sign in for, if any. */
export const wantedScope = (file: string, serverUrl: string): string | undefined => (fs.existsSync(file) ? read(file, serverUrl).wantedScope : undefined)

/** Keeps (or, with undefined, forgets) the scope a session was asked to sign in for. */
export const setWantedScope = (file: string, serverUrl: string, scope: string | undefined) => {
  const { wantedScope: _w, ...rest } = read(file, serverUrl)
  write(file, scope === undefined ? rest : { ...rest, wantedScope: scope })
}

export const make = (o: ProviderOptions): OAuthClientProvider => {
  const load = () => read(o.file, o.serverUrl)
  const update = (f: (s: Stored) => Stored) => write(o.file, f(load()))
  const redirect = () => o.redirectUrl ?? load().redirectUrl ?? "http://127.0.0.1/callback"
  const given = o.clientMetadataUrl
  if (given !== undefined) update((s) => ({ ...s, clientMetadataUrl: given }))
  const clientMetadataUrl = given ?? load().clientMetadataUrl
  if (o.clientCredentials === true) {
    const { privateKeyFile: _k, signingAlg: _a, ...keep } = load()
    const keyFile = o.privateKeyFile
    write(o.file, { ...keep, grant: "client_credentials", ...(keyFile === undefined ? {} : { privateKeyFile: path.resolve(keyFile), signingAlg: o.signingAlg ?? "ES256" }) })
  }
  const stored = load()
  const machine = o.clientCredentials === true || stored.grant === "client_credentials"
  const keyFile = machine ? stored.privateKeyFile : undefined
  const clientId = () => o.clientId ?? load().client?.client_id ?? ""
  let fresh = o.freshTokens === true
  return {
    ...(clientMetadataUrl === undefined ? {} : { clientMetadataUrl }),
    // No redirect URL: the SDK takes it as a non-interactive flow and asks prepareTokenRequest for the grant.
    get redirectUrl() {
      return machine ? undefined : redirect()
    },
    ...(machine ? { prepareTokenRequest: (scope?: string) => new URLSearchParams({ grant_type: "client_credentials", ...(scope === undefined ? {} : { scope }) }) } : {}),
    // private_key_jwt: each token request carries a fresh assertion signed with the key, read from its file then.
    ...(keyFile === undefined
      ? {}
      : {
          addClientAuthentication: (headers: Headers, params: URLSearchParams, url: string | URL, metadata?: AuthorizationServerMetadata) =>
            createPrivateKeyJwtAuth({ issuer: clientId(), subject: clientId(), privateKey: fs.readFileSync(keyFile, "utf8"), alg: stored.signingAlg ?? "ES256" })(headers, params, url, metadata)
        }),
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: "minicode",
        redirect_uris: machine ? [] : [redirect()],
        grant_types: machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
        response_types: machine ? [] : ["code"],
        token_endpoint_auth_method: keyFile !== undefined ? "private_key_jwt" : o.clientSecret === undefined ? "none" : machine ? "client_secret_basic" : "client_secret_post",
        ...(o.scope === undefined ? {} : { scope: o.scope }),
        // OpenID Connect dynamic registration: a program on the user's machine with a loopback redirect is "native"
        // (an authorization server then allows http://127.0.0.1 redirects; the default, "web", may refuse them).
        ...(machine ? {} : { application_type: "native" })
      } as OAuthClientMetadata
    },
    ...(o.state === undefined ? {} : { state: o.state }),
    clientInformation: () =>
      o.clientId !== undefined ? { client_id: o.clientId, ...(o.clientSecret === undefined ? {} : { client_secret: o.clientSecret }) } : load().client,
    saveClientInformation: (client) => update((s) => ({ ...s, client })),
    tokens: () => (fresh ? undefined : load().tokens),
    saveTokens: (tokens) => {
      fresh = false
      update((s) => ({ ...s, tokens, ...(o.redirectUrl === undefined ? {} : { redirectUrl: o.redirectUrl }) }))
    },
    redirectToAuthorization: (url) => o.onRedirect(url),
    saveCodeVerifier: (verifier) => update((s) => ({ ...s, verifier })),
    codeVerifier: () => {
      const v = load().verifier
      if (v === undefined) throw new Error("no PKCE verifier is stored: start the sign-in again")
      return v
    },
    saveDiscoveryState: (discovery) => update((s) => ({ ...s, discovery })),
    discoveryState: () => load().discovery,
    invalidateCredentials: (scope) =>
      update((s) => {
        switch (scope) {
          case "all":
            return { serverUrl: s.serverUrl }
          case "client": {
            const { client: _c, ...rest } = s
            return rest
          }
          case "tokens": {
            const { tokens: _t, ...rest } = s
            return rest
          }
          case "verifier": {
            const { verifier: _v, ...rest } = s
            return rest
          }
          case "discovery": {
            const { discovery: _d, ...rest } = s
            return rest
          }
        }
      })
  }
}
