/**
 * Persisted approvals in a JSON file (mode 600, written atomically: temp file, fsync, rename), plus entries
 * configured for the session. A damaged file is an error, never an empty allowlist silently overwritten.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { Effect, Either, Layer } from "effect"
import * as Allowlist from "../../domain/core/Allowlist.js"
import { Allowlist as AllowlistPort, AllowlistError } from "../../ports/Allowlist.js"

const codeOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""

/**
 * The entries read before, per file, with the file's identity and times when it was read: the chain asks for them
 * on every call, and reading and parsing the file each time cost a server ~0.7 ms of CPU per call (issue 45). Kept
 * only for a file whose change time was past the settle margin when it was read, so any later change (a rename
 * into place, an edit in place) has another change time or identity, whatever the clock's granularity.
 */
const known = new Map<string, { readonly stamp: string; readonly entries: ReadonlyArray<Allowlist.AllowEntry> }>()
const settleNs = 2_000_000_000n

/** The file's stamp; "missing" when there is none (no saved approvals); undefined when it cannot be told (the read says why). */
const stampOf = (file: string): { readonly stamp: string; readonly settled: boolean } | "missing" | undefined => {
  try {
    const st = fs.statSync(file, { bigint: true, throwIfNoEntry: false })
    return st === undefined
      ? "missing"
      : { stamp: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, settled: st.ctimeNs < BigInt(Date.now()) * 1_000_000n - settleNs }
  } catch {
    return undefined
  }
}

const read = (file: string): Effect.Effect<ReadonlyArray<Allowlist.AllowEntry>, AllowlistError> =>
  Effect.suspend(() => {
    const stamp = stampOf(file)
    // No file, no saved approvals: asked on every call of a server that has none, a failed open and its error
    // object each time cost more than the rest of the question.
    if (stamp === "missing") return Effect.succeed([])
    const before = stamp
    const memo = before === undefined ? undefined : known.get(file)
    if (memo !== undefined && memo.stamp === before?.stamp) return Effect.succeed(memo.entries)
    return Effect.tap(readFile(file), (entries) =>
      Effect.sync(() => {
        // Kept only when the file was the same before and after the read.
        const after = stampOf(file)
        if (before?.settled === true && typeof after === "object" && after.stamp === before.stamp) known.set(file, { stamp: before.stamp, entries })
        else known.delete(file)
      })
    )
  })

const readFile = (file: string) =>
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
