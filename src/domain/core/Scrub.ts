/**
 * Scrubbing what an MCP client is told when something fails: no absolute paths outside the workspace (paths
 * inside it become workspace-relative), no secrets that look like tokens or keys,
 * no stack traces, and a bounded length. Pure; applied to error messages only, never to file content a tool read.
 */
import * as P from "../jail/PosixPath.js"

export interface ScrubContext {
  /** The canonical workspace root. */
  readonly root: string
}

const maxChars = 4000

const secretPatterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, "[private key redacted]"],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, "[secret redacted]"],
  [/\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}/g, "[secret redacted]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[secret redacted]"],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, "[secret redacted]"],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, "[token redacted]"],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, "$1 [redacted]"],
  [/\b([A-Za-z_]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)[A-Za-z_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;]+)/gi, "$1$2[redacted]"],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, "$1[redacted]@"]
]

/** Stack frames (`    at f (/x/y.js:1:2)`) and anything after them. */
const stackFrame = /\n\s+at [^\n]*/g

/** An absolute POSIX path: starts at a boundary (not inside a URL or a word), then segments. */
const absolutePath = /(^|[\s"'`(=[,:])(\/(?!\/)(?:[^\s"'`()[\],;:]+))/g

const shorten = (ctx: ScrubContext, path: string): string => {
  const clean = P.resolve("/", path)
  if (P.isInside(ctx.root, clean)) {
    const rel = P.relative(ctx.root, clean)
    return rel === "" ? "." : rel
  }
  return "<a path outside the workspace>"
}

export const scrub = (ctx: ScrubContext, text: string): string => {
  let out = text.replace(stackFrame, "")
  for (const [pattern, replacement] of secretPatterns) out = out.replace(pattern, replacement)
  out = out.replace(absolutePath, (_m, lead: string, path: string) => `${lead}${shorten(ctx, path)}`)
  return out.length > maxChars ? `${out.slice(0, maxChars)} [truncated: ${out.length - maxChars} more characters]` : out
}
