/**
 * The environment a spawned process gets: an allowlist of harmless names, never a name that holds a credential.
 * `GH_TOKEN`, `GITHUB_TOKEN` and `SSH_AUTH_SOCK` pass only for an unrestricted session.
 */

const exact = new Set([
  "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "CI", "PWD",
  "SHLVL", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "EDITOR", "VISUAL", "PAGER", "HOSTNAME", "JAVA_HOME", "GOPATH",
  "GOROOT", "GOCACHE", "GOFLAGS", "GOMODCACHE", "GOPRIVATE", "GONOSUMDB", "GOTOOLCHAIN", "CARGO_HOME", "RUSTUP_HOME", "VIRTUAL_ENV", "PYTHONPATH", "PNPM_HOME", "NVM_DIR",
  "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "XDG_RUNTIME_DIR",
  "XDG_CACHE_HOME", "XDG_DATA_HOME", "MAKEFLAGS", "DEBIAN_FRONTEND"
])
const prefixes = ["LC_", "NODE_", "NPM_CONFIG_", "npm_config_"]
const credential = /TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PAT$|^PAT_/i
const unrestrictedOnly = new Set(["GH_TOKEN", "GITHUB_TOKEN", "SSH_AUTH_SOCK"])

export const allowed = (name: string, options: { readonly unrestricted: boolean }): boolean => {
  if (unrestrictedOnly.has(name)) return options.unrestricted
  // A name listed exactly is known harmless, whatever the credential pattern says of it: `GIT_AUTHOR_NAME` holds
  // "AUTH" (it was dropped, and git_commit failed "Author identity unknown" where CI and containers set it).
  if (exact.has(name)) return true
  if (credential.test(name)) return false
  // NODE_OPTIONS can load arbitrary code (--require, --import) from a path the model chose: never passed.
  if (name === "NODE_OPTIONS") return false
  return exact.has(name) || prefixes.some((p) => name.startsWith(p))
}

export const scrub = (
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly unrestricted: boolean }
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && allowed(name, options)) out[name] = value
  }
  return out
}
