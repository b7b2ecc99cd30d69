/**
 * The SSRF guard over a fixed resolver (a table of host → addresses): the same target parsing, classification and
 * judging as the Node guard, without DNS. A host missing from the table does not resolve (denied, fail closed).
 * For contract tests, dry runs and the chain's recording layers.
 */
import { Effect, Layer } from "effect"
import { type ResolvedAddress, NetGuard } from "../../ports/NetGuard.js"
import { checkWith, type Resolver } from "./NetGuard.js"

export type Table = Readonly<Record<string, ReadonlyArray<ResolvedAddress>>>

const resolverOf = (table: Table): Resolver => (host) => {
  const found = Object.hasOwn(table, host) ? table[host] : undefined
  return found === undefined ? Promise.reject(new Error(`${host} is not in the resolver table`)) : Promise.resolve(found)
}

export const make = (table: Table = {}) =>
  Effect.sync(() => {
    const check = checkWith(resolverOf(table))
    return NetGuard.of({ check: (url, options) => check(url, options?.allowPrivate === true) })
  })

export const layer = (table: Table = {}) => Layer.effect(NetGuard, make(table))
