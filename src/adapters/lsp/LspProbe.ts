/**
 * `minicode doctor`'s look at the configured language servers: each one found on PATH or not, and started and
 * initialised or not, within the transport's deadlines (a hung server is killed; doctor never hangs on one).
 */
import * as NodeFs from "node:fs"
import { Clock, Effect, Either } from "effect"
import * as Lsp from "../../domain/lsp/Lsp.js"
import { build, type Options } from "./JsonRpcLspTransport.js"


export interface Probe {
  readonly name: string
  readonly command: string
  /** Where the command resolves (PATH, or the path it names), if anywhere. */
  readonly resolved: string | undefined
  readonly initialised: boolean
  readonly error: string | undefined
  readonly millis: number
}

export const which = (command: string, cwd: string, env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const isExec = (p: string) => {
    try {
      NodeFs.accessSync(p, NodeFs.constants.X_OK)
      return NodeFs.statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (command.includes("/")) {
    const full = command.startsWith("/") ? command : `${cwd}/${command}`
    return isExec(full) ? full : undefined
  }
  for (const dir of (env["PATH"] ?? "").split(":")) {
    if (dir !== "" && isExec(`${dir}/${command}`)) return `${dir}/${command}`
  }
  return undefined
}

/** For `minicode doctor`: each configured server found on PATH or not, starts and initialises or not. */
export const probe = (options: Options): Effect.Effect<ReadonlyArray<Probe>> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { transport, warm } = yield* build({ ...options, backoffBaseMs: 0 })
      return yield* Effect.forEach(
        transport.servers,
        (info) =>
          Effect.gen(function* () {
            const entry = Object.entries(options.servers).find(([ext]) => info.extensions.includes(Lsp.extensionOf(`x${ext.startsWith(".") ? ext : `.${ext}`}`)))?.[1]
            const command = entry?.command ?? ""
            const resolved = which(command, options.root, { ...options.env, ...entry?.env })
            const t0 = yield* Clock.currentTimeMillis
            const started = yield* Effect.either(warm(info))
            const millis = (yield* Clock.currentTimeMillis) - t0
            return {
              name: info.name,
              command,
              resolved,
              initialised: Either.isRight(started),
              error: Either.isLeft(started) ? started.left.message : undefined,
              millis
            } satisfies Probe
          }),
        { concurrency: 2 }
      )
    })
  )
