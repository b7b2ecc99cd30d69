/**
 * The authorization server's issuer, checked as the mix-up defences require. Pure.
 * - RFC 8414 §3.3 (and OpenID Connect Discovery §4.3): metadata fetched from a well-known URL built from issuer X
 *   MUST name `issuer` X; metadata that names another is not used.
 * - RFC 9207: an authorization response's `iss` parameter, when present, MUST equal the issuer the flow started
 *   with; when the metadata says `authorization_response_iss_parameter_supported`, it MUST be present.
 * For the metadata, an issuer whose path is empty is the same with or without its one trailing "/" (`https://as` and
 * `https://as/`: the well-known URL is the same for both, and the SDK's own servers publish the latter). The
 * response's `iss` is compared with the metadata's issuer exactly, as RFC 9207 says.
 */

/** The issuer a metadata URL was built from, or undefined when `url` is not an authorization server metadata URL. */
export const expectedIssuer = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const u = new URL(url)
  const path = u.pathname
  for (const wk of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
    // RFC 8414 insertion: /.well-known/NAME{/issuer path}
    if (path === wk || path.startsWith(`${wk}/`)) return `${u.origin}${path.slice(wk.length)}`
  }
  // OpenID Connect Discovery appending: {issuer path}/.well-known/openid-configuration
  const oidc = "/.well-known/openid-configuration"
  if (path.endsWith(oidc)) return `${u.origin}${path.slice(0, -oidc.length)}`
  return undefined
}

const normal = (issuer: string): string => {
  if (!URL.canParse(issuer)) return issuer
  const u = new URL(issuer)
  return u.pathname === "/" && u.search === "" && u.hash === "" && issuer.endsWith("/") ? issuer.slice(0, -1) : issuer
}

export const same = (a: string, b: string): boolean => normal(a) === normal(b)

/** Why metadata fetched from `url` cannot be used, or undefined when its issuer is the one the URL was built from. */
export const metadataProblem = (url: string, metadata: unknown): string | undefined => {
  const expected = expectedIssuer(url)
  if (expected === undefined) return undefined
  const issuer = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["issuer"] : undefined
  if (typeof issuer !== "string") return `the authorization server metadata at ${url} names no issuer (RFC 8414 requires it): not used`
  // Metadata at an origin's root (what a 2025-03-26 MCP server without protected-resource metadata serves) may name
  // an issuer with a path on that same origin: the same server, not another one (a mix-up needs another issuer's host).
  const rootUrl = URL.canParse(expected) && new URL(expected).pathname === "/"
  if (rootUrl && URL.canParse(issuer) && new URL(issuer).origin === new URL(expected).origin) return undefined
  return same(issuer, expected)
    ? undefined
    : `the authorization server metadata at ${url} names issuer ${JSON.stringify(issuer)}, not ${JSON.stringify(expected)} (RFC 8414 §3.3: it must be the one its URL was built from; a mix-up attack looks like this): not used`
}

/** What the flow knows of the authorization server it started with. */
export interface Issuer {
  readonly issuer: string
  /** The metadata's `authorization_response_iss_parameter_supported`. */
  readonly issParameter: boolean
}

/** Why an authorization response cannot be accepted (RFC 9207), or undefined. */
export const responseProblem = (expected: Issuer | undefined, iss: string | null): string | undefined => {
  if (expected === undefined) return iss === null ? undefined : "the authorization response names an issuer, but no authorization server metadata was checked: not accepted"
  if (iss === null) return expected.issParameter ? `the authorization response has no iss parameter, though ${expected.issuer} says it sends one (RFC 9207): not accepted` : undefined
  // Exactly the metadata's issuer string: no case folding, port or trailing-slash normalization (RFC 9207 §2.4).
  return iss === expected.issuer ? undefined : `the authorization response came from issuer ${JSON.stringify(iss)}, not ${JSON.stringify(expected.issuer)} (RFC 9207: a mix-up attack looks like this): not accepted`
}
