/** Allowlist entries held for one session only (configured entries, conformance cases, tests). */
import { Effect, Layer, Ref } from "effect"
import type { AllowEntry } from "../../domain/core/Allowlist.js"
import { Allowlist } from "../../ports/Allowlist.js"

export const make = (initial: ReadonlyArray<AllowEntry> = []) =>
  Effect.map(Ref.make(initial), (ref) =>
    Allowlist.of({
      entries: Ref.get(ref),
      // Idempotent, like the file store (the Allowlist contract checks it).
      add: (entry) =>
        Ref.update(ref, (es) => (es.some((e) => JSON.stringify(e) === JSON.stringify(entry)) ? es : [...es, entry]))
    })
  )

export const layer = (initial: ReadonlyArray<AllowEntry> = []) => Layer.effect(Allowlist, make(initial))
