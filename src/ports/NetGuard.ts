import { Context, type Effect } from "effect"
import type { Decision } from "../domain/core/Decision.js"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** The guard's verdict on one URL, with the addresses it judged (empty when it denied before resolving). */
export interface NetCheck {
  readonly decision: Decision
  readonly addresses: ReadonlyArray<ResolvedAddress>
}

export interface NetCheckOptions {
  /** The explicit opt-in for one configured server: private and loopback addresses pass. */
  readonly allowPrivate?: boolean
}

/**
 * The SSRF guard: scheme, WHATWG-normalised host, DNS resolution (the same resolver the real connection uses)
 * and every resolved address classified. DNS failure or timeout denies (fail closed). Never fails: a problem is a deny.
 */
export interface NetGuardShape {
  readonly check: (url: string, options?: NetCheckOptions) => Effect.Effect<NetCheck>
}

export class NetGuard extends Context.Tag("minicode/NetGuard")<NetGuard, NetGuardShape>() {}
