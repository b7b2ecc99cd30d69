/**
 * Approvers: a TTY prompt on the operator's terminal, or fixed answers. Without a TTY every ask is a deny.
 */
import * as fs from "node:fs"
import * as nodeTty from "node:tty"
import { Effect, Layer } from "effect"
import * as Visible from "../../domain/core/Visible.js"
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

/**
 * Prompts on /dev/tty (stdin/stdout may be pipes to an assistant); answers "no" when there is no terminal.
 * The terminal stays in its own line mode: the kernel echoes what is typed, once, and Enter ends the line. It is
 * read through a TTY handle (`tty.ReadStream`), which closing stops at once: a file stream's read of /dev/tty sat
 * in a worker thread until one more line came, so the process did not give the shell back after the answer and the
 * person's next command went into it; readline's own echo (terminal: true, without raw mode) showed the answer
 * twice. What the prompt shows (the reason, the command or paths) is made visible (`Visible.line`): a name or a
 * command cannot draw a forged question.
 */
export const tty = Layer.succeed(
  Approver,
  Approver.of({
    ask: (request) =>
      Effect.async<Answer>((resume) => {
        let input: nodeTty.ReadStream | undefined
        let output: number | undefined
        let done = false
        const close = () => {
          input?.destroy()
          input = undefined
          if (output !== undefined) fs.closeSync(output)
          output = undefined
        }
        const finish = (answer: Answer) => {
          if (done) return
          done = true
          close()
          resume(Effect.succeed(answer))
        }
        const write = (text: string) => {
          try {
            if (output !== undefined) fs.writeSync(output, text)
          } catch {
            // A terminal gone while asking: the answer is no.
          }
        }
        try {
          const fd = fs.openSync("/dev/tty", "r")
          if (!nodeTty.isatty(fd)) {
            fs.closeSync(fd)
            finish("no")
            return
          }
          output = fs.openSync("/dev/tty", "w")
          input = new nodeTty.ReadStream(fd)
        } catch {
          finish("no")
          return
        }
        const question = `minicode: ${Visible.line(request.decision.reason)}\n  ${Visible.line(request.summary)}\n  allow? [y]es / [n]o / [a]lways: `
        let tries = 0
        let pending = ""
        input.setEncoding("utf8")
        input.on("data", (chunk: string) => {
          pending += chunk
          let at = pending.indexOf("\n")
          while (at !== -1 && !done) {
            const answer = parse(pending.slice(0, at))
            pending = pending.slice(at + 1)
            tries += 1
            if (answer !== undefined) return finish(answer)
            if (tries >= 3) return finish("no")
            write("  allow? [y]es / [n]o / [a]lways: ")
            at = pending.indexOf("\n")
          }
        })
        input.on("end", () => {
          write("\n")
          finish("no")
        })
        input.on("error", () => finish("no"))
        write(question)
        return Effect.sync(() => {
          if (done) return
          done = true
          write("\n")
          close()
        })
      })
  })
)
