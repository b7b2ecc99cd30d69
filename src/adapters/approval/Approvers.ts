/**
 * Approvers: a TTY prompt on the operator's terminal, or fixed answers. Without a TTY every ask is a deny.
 */
import * as fs from "node:fs"
import * as readline from "node:readline/promises"
import { Effect, Layer } from "effect"
import { type Answer, Approver } from "../../ports/Approver.js"

/** Answers every request the same way: "no" for non-interactive runs, "yes" only in tests. */
export const constant = (answer: Answer) => Layer.succeed(Approver, Approver.of({ ask: () => Effect.succeed(answer) }))

const parse = (line: string): Answer | undefined => {
  const word = line.trim().toLowerCase()
  if (word === "y" || word === "yes") return "yes"
  if (word === "a" || word === "always") return "always"
  if (word === "" || word === "n" || word === "no") return "no"
  return undefined
}

/** Prompts on /dev/tty (stdin/stdout may be pipes to an assistant); answers "no" when there is no terminal. */
export const tty = Layer.succeed(
  Approver,
  Approver.of({
    ask: (request) =>
      Effect.promise(async (): Promise<Answer> => {
        let input: fs.ReadStream | undefined
        let output: fs.WriteStream | undefined
        try {
          input = fs.createReadStream("/dev/tty")
          output = fs.createWriteStream("/dev/tty")
          // Without a terminal the open fails asynchronously: an unhandled 'error' would crash the process.
          output.on("error", () => undefined)
          await new Promise<void>((resolve, reject) => {
            input?.once("open", () => resolve())
            input?.once("error", reject)
          })
          const rl = readline.createInterface({ input, output, terminal: true })
          try {
            for (let tries = 0; tries < 3; tries++) {
              const line = await rl.question(`minicode: ${request.decision.reason}\n  ${request.summary}\n  allow? [y]es / [n]o / [a]lways: `)
              const answer = parse(line)
              if (answer !== undefined) return answer
            }
            return "no"
          } finally {
            rl.close()
          }
        } catch {
          return "no"
        } finally {
          input?.destroy()
          output?.destroy()
        }
      })
  })
)
