export interface Running {
  readonly url: string
  /** `resource` parameters the authorization server saw. */
  readonly resources: Array<string>
  /** Dynamic registration requests' bodies (client metadata). */
  readonly registrations: Array<Record<string, unknown>>
  readonly close: () => Promise<void>
}
/** `stepUp`: every request needs scope mcp:tools, a tools/call also mcp:write (a 403 insufficient_scope). */
export declare const start: (options?: {
  readonly stepUp?: boolean
  readonly metadataIssuer?: string
  readonly issSupported?: boolean
  readonly responseIss?: string | null
}) => Promise<Running>
