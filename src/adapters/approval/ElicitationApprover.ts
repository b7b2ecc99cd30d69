/**
 * Asks the person behind an MCP client, through `elicitation/create` (form mode): one plain sentence and three
 * answers (allow once, always, deny; no "always" where the request has no exact entry to save). Decline, cancel, a
 * time-out, a failed request and a client without the capability are all a no that says which it was, and how to
 * allow the call without being asked.
 */
import { Duration, Effect, Layer, Option } from "effect"
import { type Answer, type ApprovalRequest, Approver, type ElicitationChannel, type Refused, refused } from "../../ports/Approver.js"

export interface Options {
  readonly channel: ElicitationChannel
  /** How long the user has to answer (default 120 s). */
  readonly timeoutMs?: number
  /** The front end's way to allow without asking, e.g. "restart minicode mcp serve with --allow-all". */
  readonly howToAllow?: string
}

export const defaultTimeoutMs = 120_000

const choices = (request: ApprovalRequest) =>
  request.entry === undefined
    ? { values: ["once", "deny"], names: ["Allow once", "Deny"] }
    : {
        values: ["once", "always", "deny"],
        names: ["Allow once", request.entry.argv === undefined ? `Always allow ${request.entry.tool}` : `Always allow \`${request.entry.argv.join(" ")}\``, "Deny"]
      }

/** The form: one required choice, a flat schema every form-mode client can render. */
export const formFor = (request: ApprovalRequest) => {
  const { values, names } = choices(request)
  return {
    message: request.sentence ?? `${request.summary}; minicode asks because ${request.decision.reason}.`,
    requestedSchema: {
      type: "object",
      properties: {
        answer: { type: "string", title: "Allow this call?", description: request.entry?.argv === undefined ? "Allow it once, always allow this exact tool, or deny it" : "Allow it once, always allow commands that start with exactly these words, or deny it", enum: values, enumNames: names }
      },
      required: ["answer"]
    }
  }
}

export const make = (options: Options) => {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  const no = (why: string): Refused => refused(why, options.howToAllow)
  const ask = (request: ApprovalRequest): Effect.Effect<Answer | Refused> => {
    if (!options.channel.supported()) return Effect.succeed(no("the MCP client cannot ask the user (it did not declare the elicitation capability)"))
    const form = formFor(request)
    return Effect.tryPromise({ try: (signal) => options.channel.elicit(form, signal), catch: (cause) => cause }).pipe(
      Effect.timeoutOption(Duration.millis(timeoutMs)),
      Effect.map((reply): Answer | Refused => {
        if (Option.isNone(reply)) return no(`the user did not answer within ${Math.round(timeoutMs / 1000)} s`)
        switch (reply.value.action) {
          case "decline":
            return no("the user declined")
          case "cancel":
            return no("the user dismissed the question")
          case "accept": {
            const answer = reply.value.content?.["answer"]
            if (answer === "once") return "yes"
            if (answer === "always" && request.entry !== undefined) return "always"
            if (answer === "deny") return no("the user denied it")
            return no(`the client answered ${JSON.stringify(answer ?? null).slice(0, 40)}, which is not one of the offered answers`)
          }
        }
      }),
      Effect.catchAll((cause) => Effect.succeed(no(`asking the user failed (${cause instanceof Error ? cause.message : String(cause)})`)))
    )
  }
  return Approver.of({ ask })
}

export const layer = (options: Options) => Layer.succeed(Approver, make(options))
