/**
 * The read-only toolchain caches a language server's sandbox shows, pure: where a language's dependencies live on
 * the host (Go's module cache, Cargo's registry and git checkouts, rustup's toolchains, Maven's and Gradle's
 * repositories, user site-packages and pyenv's Pythons, pyright's own cache), decided from the home, the
 * environment and what `go env GOMODCACHE` said. The sandbox's home is an empty tmpfs, so without them gopls on a
 * module with dependencies answers nothing ("no package metadata"), after a load deadline per call.
 *
 * Never a credential: only the cache folders themselves are named, never the folder that holds them
 * (`~/.cargo/registry`, not `~/.cargo`, beside `credentials.toml`; `~/.m2/repository`, not `settings.xml`), and a
 * folder the environment names (GOMODCACHE, CARGO_HOME…) is dropped when it is the root, the home or a folder
 * above it, or holds one of the places credentials live (`credentialPlaces`); the sandbox profile drops, besides,
 * any the jail refuses by name (`Jail.sensitiveReason`) and masks the host's private files below what it shows.
 */
import * as P from "../jail/PosixPath.js"

export interface Facts {
  /** The user's home on the host (absolute), or undefined. */
  readonly home: string | undefined
  /** The host environment (GOMODCACHE, GOPATH, CARGO_HOME, RUSTUP_HOME, PYENV_ROOT, XDG_CACHE_HOME, VIRTUAL_ENV). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** What `go env GOMODCACHE` printed on the host (it reads `go env -w` settings too), when go is installed. */
  readonly goModCache?: string | undefined
}

/** Where credentials live under the home (and under CARGO_HOME): a cache that holds one of them is never shown. */
export const credentialPlaces: ReadonlyArray<string> = [
  ".ssh", ".netrc", "_netrc", ".git-credentials", ".gitconfig", ".config", ".aws", ".azure", ".gnupg", ".docker",
  ".kube", ".npmrc", ".yarnrc", ".pypirc", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
  ".cargo/credentials", ".cargo/credentials.toml", ".local/share/keyrings", ".password-store", ".terraform.d", ".vault-token"
]

const abs = (p: string | undefined): string | undefined => (p !== undefined && p.startsWith("/") ? P.resolve("/", p) : undefined)

/** The Go module cache: `go env GOMODCACHE`, else GOMODCACHE, else the first GOPATH entry's `pkg/mod`, else `~/go/pkg/mod`. */
export const goModCache = (facts: Facts): string | undefined => {
  const told = abs(facts.goModCache?.trim()) ?? abs(facts.env["GOMODCACHE"])
  if (told !== undefined) return told
  const gopath = abs(facts.env["GOPATH"]?.split(":").find((p) => p !== ""))
  if (gopath !== undefined) return P.join(gopath, "pkg", "mod")
  const home = abs(facts.home)
  return home === undefined ? undefined : P.join(home, "go", "pkg", "mod")
}

/** Every candidate folder, before the safety rule (`safe`); the adapter keeps those that exist. */
export const candidates = (facts: Facts): ReadonlyArray<string> => {
  const home = abs(facts.home)
  const under = (...s: ReadonlyArray<string>) => (home === undefined ? [] : [P.join(home, ...s)])
  const cargo = abs(facts.env["CARGO_HOME"])
  const rustup = abs(facts.env["RUSTUP_HOME"])
  const pyenv = abs(facts.env["PYENV_ROOT"])
  const cache = abs(facts.env["XDG_CACHE_HOME"])
  const venv = abs(facts.env["VIRTUAL_ENV"])
  const go = goModCache(facts)
  return [
    ...(go === undefined ? [] : [go]),
    ...(cargo === undefined ? under(".cargo", "registry") : [P.join(cargo, "registry")]),
    ...(cargo === undefined ? under(".cargo", "git") : [P.join(cargo, "git")]),
    ...(rustup === undefined ? under(".rustup", "toolchains") : [P.join(rustup, "toolchains")]),
    ...under(".m2", "repository"),
    ...under(".gradle", "caches"),
    ...under(".local", "lib"),
    ...(pyenv === undefined ? under(".pyenv", "versions") : [P.join(pyenv, "versions")]),
    ...(cache === undefined ? under(".cache", "pyright-python") : [P.join(cache, "pyright-python")]),
    ...(venv === undefined ? [] : [venv])
  ]
}

/**
 * Whether `folder` may be shown: absolute, not the root, not the home or above it, neither holding nor inside one
 * of the places credentials live (under the home, or under CARGO_HOME).
 */
export const safe = (folder: string, facts: Facts): boolean => {
  if (!folder.startsWith("/") || folder === "/") return false
  const home = abs(facts.home)
  const cargo = abs(facts.env["CARGO_HOME"])
  if (home !== undefined && P.isInside(folder, home)) return false
  const places = [
    ...(home === undefined ? [] : credentialPlaces.map((c) => P.join(home, c))),
    ...(cargo === undefined ? [] : ["credentials", "credentials.toml"].map((c) => P.join(cargo, c)))
  ]
  return !places.some((c) => P.isInside(folder, c) || P.isInside(c, folder))
}

/** The candidates that pass `safe`, each once. */
export const folders = (facts: Facts): ReadonlyArray<string> => [...new Set(candidates(facts).filter((f) => safe(f, facts)))]

/**
 * The environment a sandboxed language server gets besides the scrubbed one, given the folders shown: GOMODCACHE
 * named whenever the module cache is shown (go's own `go env -w` settings live in a config folder the sandbox does
 * not show, and a home inside the workspace is replaced by another), and GOPROXY off: the sandbox has no network,
 * so a module missing from the cache fails at once, plainly, instead of after a dial's timeout.
 */
export const environment = (facts: Facts, shown: ReadonlyArray<string>): Readonly<Record<string, string>> => {
  const go = goModCache(facts)
  return go === undefined || !shown.includes(go) ? {} : { GOMODCACHE: go, GOPROXY: "off" }
}
