/**
 * `mcp serve`'s resources, prompt and completions, bridged to the SDK: the README and the repo map
 * (`Resources.list`/`read`, through the chain), the `minicode://workspace/{path}` template, the `minicode-guide`
 * prompt with its `focus` argument, `completion/complete` for both (the focus's scopes; the template's paths, listed
 * through the chain), and `resources/subscribe` for the repo map: while a client is subscribed the workspace is
 * watched (`watch`, the app's), and a change sends `notifications/resources/updated` for it, once per quiet period.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type * as Types from "@modelcontextprotocol/sdk/types.js"
import { Effect, Either, Exit } from "effect"
import * as Framing from "../domain/mcp/JsonRpcFraming.js"
import * as Guide from "../domain/mcp/McpGuide.js"
import type { Outcome } from "./Protocol.js"
import * as P from "./Protocol.js"
import * as Resources from "./Resources.js"

/** A running watch, or why none could be made. */
export type Watch = (root: string, onChange: () => void) => { readonly stop: () => void } | { readonly failed: string }

export interface Options {
  readonly server: Server
  readonly types: typeof Types
  readonly root: string
  /** A read-only tool call through the chain (`Core.read`). */
  readonly read: (name: string, args: unknown) => Effect.Effect<Outcome>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
  readonly fail: (code: number, message: string) => Error
  /** The guide's text, focused on a scope; undefined for a focus that is no scope. */
  readonly guide: (focus: string | undefined) => string | undefined
  readonly watch?: Watch | undefined
  readonly log: (level: "warning", message: string) => void
}

export const capabilities = { resources: { listChanged: false, subscribe: true }, completions: {} } as const

const invalid = Framing.ErrorCodes.InvalidParams

/** Registers the handlers; the returned `close` stops the watch. */
export const register = (o: Options): { readonly close: () => void } => {
  const { server, types } = o
  server.setRequestHandler(types.ListResourcesRequestSchema, () =>
    o.run(Resources.list(o.read)).then((exit) => ({ resources: Exit.isSuccess(exit) ? [...exit.value] : [] }))
  )
  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [{ ...Resources.fileTemplate }] }))
  server.setRequestHandler(types.ReadResourceRequestSchema, (request) =>
    o.run(Effect.either(Resources.read(o.read, request.params.uri))).then((exit) => {
      if (!Exit.isSuccess(exit)) return Promise.reject(o.fail(Framing.ErrorCodes.InternalError, "internal error"))
      const got = exit.value
      return Either.isRight(got) ? { contents: [{ ...got.right }] } : Promise.reject(o.fail(got.left.code, got.left.message))
    })
  )

  server.setRequestHandler(types.ListPromptsRequestSchema, () => ({
    prompts: [{ name: Guide.promptName, description: Guide.promptDescription, arguments: [{ ...Guide.focusArgument }] }]
  }))
  server.setRequestHandler(types.GetPromptRequestSchema, (request) => {
    if (request.params.name !== Guide.promptName) return Promise.reject(o.fail(invalid, `unknown prompt "${P.shortName(request.params.name)}"`))
    const focus = request.params.arguments?.["focus"]
    const text = o.guide(focus)
    if (text === undefined) return Promise.reject(o.fail(invalid, `unknown focus "${P.shortName(focus ?? "")}": one of ${Guide.completeFocus("").join(", ")}`))
    return { description: Guide.promptDescription, messages: [{ role: "user" as const, content: { type: "text" as const, text } }] }
  })

  server.setRequestHandler(types.CompleteRequestSchema, (request) => {
    const { ref, argument } = request.params
    const answer = (c: Resources.Completion) => ({ completion: { values: [...c.values], total: c.total, hasMore: c.hasMore } })
    if (ref.type === "ref/prompt") {
      if (ref.name !== Guide.promptName) return Promise.reject(o.fail(invalid, `unknown prompt "${P.shortName(ref.name)}"`))
      if (argument.name !== Guide.focusArgument.name) return Promise.reject(o.fail(invalid, `the prompt ${Guide.promptName} has no argument "${P.shortName(argument.name)}"`))
      return answer(Resources.completed(Guide.completeFocus(argument.value)))
    }
    if (ref.uri !== Resources.fileTemplate.uriTemplate) return Promise.reject(o.fail(invalid, `unknown resource template "${P.shortName(ref.uri)}"`))
    if (argument.name !== "path") return Promise.reject(o.fail(invalid, `the template ${Resources.fileTemplate.uriTemplate} has no argument "${P.shortName(argument.name)}"`))
    return o.run(Resources.completePath(o.read, o.root, argument.value)).then((exit) => answer(Exit.isSuccess(exit) ? exit.value : Resources.completed([])))
  })

  // One watch while the repo map has a subscriber (subscriptions are per connection: stdio is one client).
  let watching: { readonly stop: () => void } | undefined
  const subscribed = new Set<string>()
  const stop = () => {
    watching?.stop()
    watching = undefined
  }
  server.setRequestHandler(types.SubscribeRequestSchema, (request) => {
    const uri = request.params.uri
    if (uri !== Resources.repoMapUri) return Promise.reject(o.fail(invalid, `subscriptions are offered for ${Resources.repoMapUri} only, not ${P.shortName(uri)}`))
    if (o.watch === undefined) return Promise.reject(o.fail(Framing.ErrorCodes.InternalError, "this server cannot watch the workspace"))
    subscribed.add(uri)
    if (watching === undefined) {
      const w = o.watch(o.root, () => {
        for (const u of subscribed) server.sendResourceUpdated({ uri: u }).catch(() => undefined)
      })
      if ("failed" in w) {
        subscribed.delete(uri)
        o.log("warning", `cannot watch the workspace for ${uri}: ${w.failed}`)
        return Promise.reject(o.fail(Framing.ErrorCodes.InternalError, `cannot watch the workspace: ${w.failed}`))
      }
      watching = w
    }
    return {}
  })
  server.setRequestHandler(types.UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri)
    if (subscribed.size === 0) stop()
    return {}
  })
  return { close: stop }
}
