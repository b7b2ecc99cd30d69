export interface Running {
  readonly url: string
  /** `resource` parameters the authorization server saw. */
  readonly resources: Array<string>
  readonly close: () => Promise<void>
}
/** `stepUp`: every request needs scope mcp:tools, a tools/call also mcp:write (a 403 insufficient_scope). */
export declare const start: (options?: { readonly stepUp?: boolean }) => Promise<Running>
