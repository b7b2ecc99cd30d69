/**
 * Work modes, permission modes and access policies: the three dials a session sets.
 * The work mode is a ceiling that only narrows; the access policy decides inside it.
 */
import { Either, Schema } from "effect"

export const WorkMode = Schema.Literal("DISCUSS", "PLAN", "BUILD", "EXECUTE")
export type WorkMode = typeof WorkMode.Type

export const PermissionMode = Schema.Literal("AUTO", "ASK")
export type PermissionMode = typeof PermissionMode.Type

/** `unrestricted` exists for the programmatic API only: never persisted, never a CLI flag. */
export const AccessPolicy = Schema.Literal("readonly", "plan", "allowlist", "allow-all", "unrestricted")
export type AccessPolicy = typeof AccessPolicy.Type

export const defaults = {
  workMode: "DISCUSS" as WorkMode,
  permissionMode: "AUTO" as PermissionMode
}

const normalise = (raw: string) => raw.trim()

/** Parses a user-typed mode name case-insensitively; the error lists what is accepted. */
export const parseWorkMode = (raw: string): Either.Either<WorkMode, string> => {
  const up = normalise(raw).toUpperCase()
  return Schema.is(WorkMode)(up)
    ? Either.right(up)
    : Either.left(`unknown work mode "${raw}": expected one of ${WorkMode.literals.join(", ")}`)
}

export const parsePermissionMode = (raw: string): Either.Either<PermissionMode, string> => {
  const up = normalise(raw).toUpperCase()
  return Schema.is(PermissionMode)(up)
    ? Either.right(up)
    : Either.left(`unknown permission mode "${raw}": expected one of ${PermissionMode.literals.join(", ")}`)
}

const policyAliases: Record<string, AccessPolicy> = {
  readonly: "readonly",
  "read-only": "readonly",
  plan: "plan",
  allowlist: "allowlist",
  "allow-all": "allow-all",
  allow_all: "allow-all",
  allowall: "allow-all",
  unrestricted: "unrestricted"
}

/** `allowUnrestricted` is false for every user-facing surface (CLI flags, config files, conformance cases). */
export const parseAccessPolicy = (
  raw: string,
  options: { readonly allowUnrestricted: boolean }
): Either.Either<AccessPolicy, string> => {
  const key = normalise(raw).toLowerCase()
  const found = Object.hasOwn(policyAliases, key) ? policyAliases[key] : undefined
  if (found === undefined) {
    return Either.left(`unknown policy "${raw}": expected one of readonly, plan, allowlist, allow-all`)
  }
  if (found === "unrestricted" && !options.allowUnrestricted) {
    return Either.left(`policy "unrestricted" can only be set per session through the programmatic API`)
  }
  return Either.right(found)
}
