/**
 * Persisted approvals in a JSON file (mode 600, written atomically: temp file, fsync, rename), plus entries
 * configured for the session. A damaged file is an error, never an empty allowlist silently overwritten.
 */
import { randomBytes } from "node:crypto"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { Effect, Either, Layer } from "effect"
import * as Allowlist from "../../domain/core/Allowlist.js"
import { Allowlist as AllowlistPort, AllowlistError } from "../../ports/Allowlist.js"

const codeOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""

const read = (file: string) =>
  Effect.tryPromise({ try: () => fsp.readFile(file, "utf8"), catch: (cause) => cause }).pipe(
    Effect.catchIf((cause) => codeOf(cause) === "ENOENT", () => Effect.succeed("[]")),
    Effect.mapError((cause) => new AllowlistError({ reason: `cannot read ${file}: ${String(cause)}` })),
    Effect.flatMap((text) =>
      Effect.try({ try: (): unknown => JSON.parse(text), catch: () => new AllowlistError({ reason: `${file} is not valid JSON; fix or remove it` }) })
    ),
    Effect.flatMap((json) => {
      const list = Array.isArray(json) ? json : typeof json === "object" && json !== null && "entries" in json && Array.isArray(json.entries) ? json.entries : undefined
      if (list === undefined) return Effect.fail(new AllowlistError({ reason: `${file} must hold {"entries": [...]}` }))
      return Either.match(Allowlist.parseEntries(list), {
        onLeft: (reason) => Effect.fail(new AllowlistError({ reason: `${file}: ${reason}` })),
        onRight: Effect.succeed
      })
    })
  )

const write = (file: string, entries: ReadonlyArray<Allowlist.AllowEntry>) =>
  Effect.tryPromise({
    try: async () => {
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
      const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`
      const handle = await fsp.open(tmp, "wx", 0o600)
      try {
        await handle.writeFile(JSON.stringify({ entries }, null, 2) + "\n")
        await handle.sync()
      } finally {
        await handle.close()
      }
      await fsp.rename(tmp, file)
    },
    catch: (cause) => new AllowlistError({ reason: `cannot write ${file}: ${String(cause)}` })
  })

export const make = (file: string, configured: ReadonlyArray<Allowlist.AllowEntry> = []) =>
  Effect.succeed(
    AllowlistPort.of({
      entries: Effect.map(read(file), (saved) => [...configured, ...saved]),
      add: (entry) =>
        Effect.flatMap(read(file), (saved) =>
          saved.some((e) => JSON.stringify(e) === JSON.stringify(entry)) ? Effect.void : write(file, [...saved, entry])
        )
    })
  )

export const layer = (file: string, configured: ReadonlyArray<Allowlist.AllowEntry> = []) =>
  Layer.effect(AllowlistPort, make(file, configured))
