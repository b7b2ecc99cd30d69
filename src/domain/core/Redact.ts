/** Redacts obvious secrets from tool output before an assistant (or a log) sees them. */

const rules: ReadonlyArray<readonly [string, RegExp]> = [
  ["private key", /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g],
  ["api key", /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g],
  ["github token", /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g],
  ["aws key", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ["slack token", /\bxox[abprs]-[A-Za-z0-9-]{10,}/g],
  ["google key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ["npm token", /\bnpm_[A-Za-z0-9]{36}\b/g],
  ["bearer token", /\b(Bearer|Token)\s+[A-Za-z0-9._~+/-]{16,}=*/g]
]

export const redact = (text: string): string => {
  let out = text
  for (const [kind, pattern] of rules) out = out.replace(pattern, `[redacted: ${kind}]`)
  return out
}
