/**
 * A fetch for the SDK's OAuth client that checks every authorization server metadata document it loads
 * (`OAuthIssuer.metadataProblem`, RFC 8414 §3.3): one naming another issuer fails the flow with that sentence, before
 * anything from it (endpoints, registration) is used. The issuer it accepted is kept for the authorization response's
 * `iss` check (RFC 9207).
 */
import * as OAuthIssuer from "../../domain/mcp/OAuthIssuer.js"
import type { FetchLike } from "../net/PinnedFetch.js"

export interface Checked {
  readonly fetch: FetchLike
  /** The issuer of the last metadata accepted, if any was loaded. */
  readonly issuer: () => OAuthIssuer.Issuer | undefined
}

export const make = (inner: FetchLike): Checked => {
  let seen: OAuthIssuer.Issuer | undefined
  const fetch: FetchLike = async (url, init) => {
    const response = await inner(url, init)
    const href = typeof url === "string" ? url : url.href
    if (!response.ok || OAuthIssuer.expectedIssuer(href) === undefined) return response
    const body: unknown = await response.clone().json().catch(() => undefined)
    if (body === undefined) return response
    const problem = OAuthIssuer.metadataProblem(href, body)
    if (problem !== undefined) {
      await response.body?.cancel().catch(() => undefined)
      throw new Error(problem)
    }
    const record = body as Record<string, unknown>
    seen = { issuer: String(record["issuer"]), issParameter: record["authorization_response_iss_parameter_supported"] === true }
    return response
  }
  return { fetch, issuer: () => seen }
}
