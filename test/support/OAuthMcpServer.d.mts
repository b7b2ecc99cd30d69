export interface Running {
  readonly url: string
  /** `resource` parameters the authorization server saw. */
  readonly resources: Array<string>
  readonly close: () => Promise<void>
}
export declare const start: () => Promise<Running>
