/**
 * `minicode config mcp login ID`: the MCP authorization flow with the SDK's client auth (`auth`): protected-resource
 * and authorization-server discovery, dynamic client registration (or a pre-registered client id, or a Client ID
 * Metadata Document URL where the server supports it), PKCE, the `resource` parameter. The server is asked first,
 * as a session would (an `initialize` without a token), so its 401's `WWW-Authenticate` can say where its metadata
 * is and which scope to ask for. The scope asked for: `--scope`, else the one a session was last refused for (a
 * step-up), else the 401's, else what the metadata advertises. The authorization URL is printed and opened in a
 * browser when there is one ($BROWSER, else xdg-open/open with a display); the redirect is received on 127.0.0.1
 * (at a random port the first time, then at the port the client was registered with while it is free), its state
 * checked. Tokens go to the config folder (FileOAuthProvider), never printed.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as FileOAuthProvider from "./FileOAuthProvider.js"
import type { FetchLike } from "../net/PinnedFetch.js"
import * as OAuthIssuer from "../../domain/mcp/OAuthIssuer.js"
import * as IssuerFetch from "./IssuerFetch.js"

export interface LoginOptions {
  readonly id: string
  readonly serverUrl: string
  readonly file: string
  readonly fetch?: FetchLike
  readonly clientId?: string
  readonly clientSecret?: string
  readonly scope?: string
  readonly clientMetadataUrl?: string
  /** The client_credentials grant (machine-to-machine, with clientId and clientSecret or a private key): no browser. */
  readonly clientCredentials?: boolean
  readonly privateKeyFile?: string
  readonly signingAlg?: string
  /** Where the URL is printed (stderr). */
  readonly say: (line: string) => void
  /** Opens the URL (default: a browser when one exists). */
  readonly open?: (url: string) => void
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly waitMs?: number
}

/** The browser command: $BROWSER (first of a `:` list, `%s` for the URL), else xdg-open/open when a display exists. */
export const browserCommand = (env: Readonly<Record<string, string | undefined>>, platform: string): ReadonlyArray<string> | undefined => {
  const configured = env["BROWSER"]?.split(":").find((c) => c.trim() !== "")
  if (configured !== undefined) return configured.includes("%s") ? configured.trim().split(/\s+/) : [...configured.trim().split(/\s+/), "%s"]
  if (platform === "darwin") return ["open", "%s"]
  if (platform === "linux" && (env["DISPLAY"] !== undefined || env["WAYLAND_DISPLAY"] !== undefined)) return ["xdg-open", "%s"]
  return undefined
}

const openBrowser = (env: Readonly<Record<string, string | undefined>>) => (url: string) => {
  const argv = browserCommand(env, process.platform)
  if (argv === undefined || argv[0] === undefined) return
  const child = spawn(argv[0], argv.slice(1).map((a) => (a === "%s" ? url : a)), { detached: true, stdio: "ignore" })
  child.on("error", () => undefined)
  child.unref()
}

/** Listens on 127.0.0.1 at `port` when it is free, else at a random port. */
const listen = (server: http.Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      if (port === 0 || e.code !== "EADDRINUSE") return reject(e)
      server.listen(0, "127.0.0.1", resolve)
    }
    server.once("error", onError)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError)
      resolve()
    })
  })

/**
 * Waits for the redirect on a loopback listener: the code, once a request carries the expected state. It listens
 * on `port` (the one the client was registered with) when that is free, so the registration stays valid.
 */
const loopback = async (port: number, issuerProblem: (iss: string | null) => string | undefined) => {
  let deliver: (code: string) => void = () => undefined
  let fail: (e: Error) => void = () => undefined
  const code = new Promise<string>((resolve, reject) => {
    deliver = resolve
    fail = reject
  })
  const expected = randomBytes(24).toString("base64url")
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (url.pathname !== "/callback") return res.writeHead(404).end()
    if (url.searchParams.get("state") !== expected) return res.writeHead(400, { "content-type": "text/plain" }).end("state mismatch: this is not the sign-in minicode started")
    const error = url.searchParams.get("error")
    const got = url.searchParams.get("code")
    if (error !== null || got === null) {
      res.writeHead(400, { "content-type": "text/plain" }).end("sign-in failed")
      return fail(new Error(`the authorization server said: ${error ?? "no code"} ${url.searchParams.get("error_description") ?? ""}`.trim()))
    }
    // RFC 9207: the response must come from the issuer the flow started with (a mix-up sends another's code here).
    const wrongIssuer = issuerProblem(url.searchParams.get("iss"))
    if (wrongIssuer !== undefined) {
      res.writeHead(400, { "content-type": "text/plain" }).end("sign-in refused: the response came from another authorization server")
      return fail(new Error(wrongIssuer))
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("minicode is signed in; you can close this tab")
    deliver(got)
  })
  await listen(server, port)
  const bound = (server.address() as AddressInfo).port
  return { redirectUrl: `http://127.0.0.1:${bound}/callback`, state: expected, code, close: () => new Promise<void>((r) => server.close(() => r())) }
}

/** What the server's refusal of an unauthenticated `initialize` says (none when it does not refuse). */
const probe = async (serverUrl: string, fetchFn: FetchLike, extract: (r: Response) => { resourceMetadataUrl?: URL; scope?: string }) => {
  const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "minicode", version: "0.1.0" } } }
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
  const response = await fetchFn(serverUrl, { method: "POST", headers, body: JSON.stringify(initialize) }).catch(() => undefined)
  if (response === undefined) return {}
  await response.body?.cancel().catch(() => undefined)
  // A server that let it in opened a session: end it.
  const session = response.headers.get("mcp-session-id")
  if (session !== null) await fetchFn(serverUrl, { method: "DELETE", headers: { "mcp-session-id": session } }).then((r) => r.body?.cancel()).catch(() => undefined)
  return response.status === 401 || response.status === 403 ? extract(response) : {}
}

/** Signs in to one server; resolves once tokens are stored. */
export const login = async (o: LoginOptions): Promise<"signed-in" | "already"> => {
  const { auth, extractWWWAuthenticateParams } = await import("@modelcontextprotocol/sdk/client/auth.js")
  const plain: FetchLike = o.fetch ?? ((url, init) => fetch(url, init))
  const hint = await probe(o.serverUrl, plain, extractWWWAuthenticateParams)
  const checked = IssuerFetch.make(plain)
  const stepUp = FileOAuthProvider.wantedScope(o.file, o.serverUrl)
  const scope = o.scope ?? stepUp ?? hint.scope
  const common = {
    serverUrl: o.serverUrl,
    fetchFn: checked.fetch,
    ...(scope === undefined ? {} : { scope }),
    ...(hint.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: hint.resourceMetadataUrl })
  }
  if (o.clientCredentials === true) {
    if (o.clientId === undefined || (o.clientSecret === undefined) === (o.privateKeyFile === undefined)) {
      throw new Error("--client-credentials needs --client-id and one of --client-secret or --private-key-file")
    }
    const provider = FileOAuthProvider.make({
      file: o.file,
      serverUrl: o.serverUrl,
      clientId: o.clientId,
      ...(o.clientSecret === undefined ? {} : { clientSecret: o.clientSecret }),
      ...(o.privateKeyFile === undefined ? {} : { privateKeyFile: o.privateKeyFile }),
      ...(o.signingAlg === undefined ? {} : { signingAlg: o.signingAlg }),
      clientCredentials: true,
      freshTokens: true,
      ...(scope === undefined ? {} : { scope }),
      onRedirect: () => undefined
    })
    if ((await auth(provider, common)) !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens")
    FileOAuthProvider.setWantedScope(o.file, o.serverUrl, undefined)
    return "signed-in"
  }
  // A client registered dynamically at an earlier login names that login's callback: listen there again, or, when
  // that port is taken now, register anew (an authorization server may accept only registered redirect URIs).
  const registered = o.clientId === undefined ? FileOAuthProvider.registeredRedirects(o.file, o.serverUrl) : []
  const previous = registered.flatMap((u) => (URL.canParse(u) ? [new URL(u)] : [])).find((u) => u.hostname === "127.0.0.1")
  // The issuer the flow started with: the metadata loaded now, else the discovery a previous login stored.
  let provider: ReturnType<typeof FileOAuthProvider.make> | undefined
  const started = (): OAuthIssuer.Issuer | undefined => {
    const seen = checked.issuer()
    if (seen !== undefined) return seen
    const stored = provider?.discoveryState?.()
    const metadata = stored instanceof Promise ? undefined : stored?.authorizationServerMetadata
    return metadata === undefined ? undefined : { issuer: metadata.issuer, issParameter: (metadata as Readonly<Record<string, unknown>>)["authorization_response_iss_parameter_supported"] === true }
  }
  const cb = await loopback(previous === undefined ? 0 : Number(previous.port), (iss) => OAuthIssuer.responseProblem(started(), iss))
  if (registered.length > 0 && !registered.includes(cb.redirectUrl)) FileOAuthProvider.forgetClient(o.file, o.serverUrl)
  try {
    const open = o.open ?? openBrowser(o.env ?? process.env)
    provider = FileOAuthProvider.make({
      file: o.file,
      serverUrl: o.serverUrl,
      redirectUrl: cb.redirectUrl,
      state: () => cb.state,
      ...(o.clientId === undefined ? {} : { clientId: o.clientId }),
      ...(o.clientSecret === undefined ? {} : { clientSecret: o.clientSecret }),
      ...(scope === undefined ? {} : { scope }),
      ...(o.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: o.clientMetadataUrl }),
      // Asked for a scope (or a step-up): a new authorization, not a refresh of tokens for the old scope.
      freshTokens: o.scope !== undefined || stepUp !== undefined,
      onRedirect: (url) => {
        o.say(`Sign in to MCP server ${o.id} at:\n  ${url.href}`)
        open(url.href)
      }
    })
    const first = await auth(provider, common)
    if (first === "AUTHORIZED") return "already"
    const waitMs = o.waitMs ?? 5 * 60_000
    let timer: NodeJS.Timeout | undefined
    const code = await Promise.race([
      cb.code,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no sign-in within ${Math.round(waitMs / 1000)} s`)), waitMs)
      })
    ]).finally(() => clearTimeout(timer))
    const second = await auth(provider, { ...common, authorizationCode: code })
    if (second !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens")
    FileOAuthProvider.setWantedScope(o.file, o.serverUrl, undefined)
    return "signed-in"
  } finally {
    await cb.close()
  }
}
