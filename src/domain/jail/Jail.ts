/**
 * The jail: one pure decision shared by every tool, the bash guard's path checks and `mcp serve`.
 * It judges facts an adapter already gathered (the lexical path and its resolution through symlinks),
 * so the same rules hold for the real file system and the in-memory one.
 */
import { mostReadings, undecorated } from "./CopyNames.js"
import * as P from "./PosixPath.js"
import { shownPath } from "../files/ShownPath.js"
import { gitReadReasonOf, gitReason, isDotGit } from "./GitFolder.js"
import { isCode } from "./SourceNames.js"

export { isDotGit }

/**
 * `write` changes a file's content; `structure` renames, removes or replaces the entry itself (move_file's source
 * and destination, delete_file): a folder judged for it is judged with everything inside it (`checkContents`).
 */
export type Access = "read" | "write" | "structure"

/** What resolution found out about one path. `real` is the realpath of the deepest existing ancestor plus the rest. */
export interface PathFacts {
  readonly input: string
  readonly lexical: string
  readonly real: string
  /** The entry itself: the real parent plus the final name, not following a final symlink (for delete/move). */
  readonly entry: string
  readonly exists: boolean
  /** A symlink was followed on the way (the file itself or a parent). */
  readonly viaSymlink: boolean
  /** A symlink on the way points at something that does not exist. */
  readonly dangling: boolean
  readonly kind: "file" | "directory" | "symlink" | "other" | "missing"
  readonly nlink: number
  /** Identity of what was found (0 when missing), re-checked by the adapter when it opens the file. */
  readonly dev: number
  readonly ino: number
  readonly mtimeMs: number
  /** Size in bytes of what was found (0 when missing). */
  readonly size: number
  /** Permission bits of what was found (0 when missing): a replaced file keeps them. */
  readonly mode: number
}

export interface JailContext {
  /** The canonical workspace root (already realpath'd). */
  readonly root: string
  /** The user's home, for `~` in shell paths; optional. */
  readonly home?: string
  /** Opens paths outside the workspace; secrets, minicode state and /proc aliases stay denied. */
  readonly unrestricted: boolean
}

export type JailVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly rule: string; readonly reason: string }

export const ok: JailVerdict = { ok: true }
const no = (rule: string, reason: string): JailVerdict => ({ ok: false, rule, reason })

export const envTemplates = new Set([".env.example", ".env.sample", ".env.template", ".env.dist"])
// LastPass's CLI keeps its session key and the encrypted vault in `.lpass/`.
export const secretDirs = new Set([".ssh", ".aws", ".kube", ".gnupg", ".azure", ".password-store", ".tsh", ".lpass"])
const secretNames = new Set([
  ".git-credentials",
  ".npmrc",
  ".netrc",
  "_netrc",
  ".pypirc",
  ".pgpass",
  ".envrc",
  ".vault-token",
  ".htpasswd",
  ".boto",
  ".s3cfg",
  ".dockercfg",
  ".my.cnf",
  ".terraformrc",
  "terraform.rc",
  "credentials.tfrc.json",
  "kubeconfig",
  "application_default_credentials.json",
  "credentials.json",
  // The AWS console's access keys download; GnuPG 1's secret keyring.
  "credentials.csv",
  "secring.gpg",
  // The AWS CLI's shared credentials file copied beside a project; Cloudflare Wrangler's `.env`; Yarn's `.npmrc`
  // (`npmAuthToken`, `_authToken`); git's HTTP cookie file; a service account's key; rclone's remotes (tokens).
  "credentials",
  ".dev.vars",
  ".yarnrc.yml",
  ".yarnrc",
  ".secrets",
  ".secret",
  ".gitcookies",
  "serviceaccountkey.json",
  "service-account.json",
  "service_account.json",
  "rclone.conf",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "id_ecdsa_sk",
  "id_ed25519_sk",
  // Tools' own token and password stores: Google API OAuth's `token.json`, Azure Functions' settings, MySQL's
  // obfuscated login path, Ansible vault password files, Databricks, Sentry, Kaggle-style dotfiles.
  "token.json",
  "local.settings.json",
  ".mylogin.cnf",
  ".vault_pass",
  ".vault_pass.txt",
  "vault_pass",
  "vault_pass.txt",
  ".vault_password",
  "vault_password",
  "vault_password.txt",
  ".vault-pass",
  "vault-pass.txt",
  ".databrickscfg",
  ".sentryclirc",
  ".pulumi-credentials.json",
  // X11 and ICE cookies: they let any client onto the display.
  ".xauthority",
  ".iceauthority",
  // Shell, REPL and database histories: `mysql -pS3cret`, `export TOKEN=…`, `\password` typed at a prompt.
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".sh_history",
  ".ksh_history",
  ".history",
  "fish_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".rediscli_history",
  ".dbshell",
  ".mongosh_repl_history",
  ".python_history",
  ".node_repl_history",
  ".irb_history",
  ".pry_history",
  ".lesshst",
  // Vim's history and registers (a pasted token, a typed `:!curl -u user:pass`); gdb's and R's histories.
  ".viminfo",
  ".gdb_history",
  ".rhistory",
  // Connection files that hold passwords: PostgreSQL's service file (`password=`), curl's and wget's defaults
  // (`user = "name:password"`, `password =`).
  ".pg_service.conf",
  "pg_service.conf",
  ".curlrc",
  "_curlrc",
  ".wgetrc",
  // Mail and auth-source passwords: Emacs's auth-source (plain and encrypted), msmtp's and fetchmail's accounts,
  // an encrypted netrc; s3fs's access keys; gcloud's token databases copied beside a project.
  ".authinfo",
  ".authinfo.gpg",
  ".netrc.gpg",
  ".msmtprc",
  ".fetchmailrc",
  ".passwd-s3fs",
  ".htdigest",
  "credentials.db",
  "access_tokens.db",
  // Application and tool configs that hold passwords or keys by design: WordPress's database password and salts,
  // R's environment file (API keys, as `.env`), a Google service account's key by its usual name, Jenkins's
  // credential store, Android's adb private key, Claude Code's user file (`primaryApiKey`), OVH's and Linode's CLIs.
  "wp-config.php",
  ".renviron",
  "keyfile.json",
  "credentials.xml",
  "adbkey",
  ".claude.json",
  ".ovh.conf",
  ".linode-cli",
  "linode-cli",
  // Browsers' saved passwords and their keys, and cookie stores (sessions): Firefox's and Chromium's.
  "logins.json",
  "key3.db",
  "key4.db",
  "login data",
  "cookies.sqlite",
  // Red team 9. Upload and sync tools' saved logins (plain or with a published key): Sublime SFTP, Atom's
  // remote-ftp and remote-sync, FileZilla's site manager and recent servers, WinSCP, DBeaver, Robo 3T, pgAdmin.
  "sftp-config.json",
  ".ftpconfig",
  ".remote-sync.json",
  "sitemanager.xml",
  "recentservers.xml",
  "winscp.ini",
  "credentials-config.json",
  "robo3t.json",
  "pgadmin4.db",
  // Signing and registry secrets: Flutter's and Android's keystore passwords, a Kubernetes pull secret, an
  // htpasswd file by its undotted name (a registry's), an Oracle auto-login wallet, a GitHub Actions runner's key.
  "key.properties",
  "keystore.properties",
  ".dockerconfigjson",
  "htpasswd",
  "cwallet.sso",
  ".credentials_rsaparams",
  // Network and mount passwords: CIFS credentials, Wi-Fi keys; Tailscale's node keys.
  ".smbcredentials",
  "wpa_supplicant.conf",
  "tailscaled.state",
  // CLIs' token files by name: Cassandra's cqlsh, Akamai's EdgeGrid, Dart's pub, uv's (and others') credential store,
  // Buildkite's agent, OpenStack's clouds, Talos, Vultr, Backblaze B2, Infisical, Twitter's twurl, Transifex, and
  // mail sync passwords (mbsync, OfflineIMAP).
  "cqlshrc",
  ".edgerc",
  "pub-tokens.json",
  "credentials.toml",
  "buildkite-agent.cfg",
  "clouds.yaml",
  "talosconfig",
  ".vultr-cli.yaml",
  ".b2_account_info",
  "infisical-config.json",
  ".twurlrc",
  ".transifexrc",
  ".mbsyncrc",
  ".offlineimaprc"
])
// NetworkManager's connections (Wi-Fi and VPN secrets), KWallet's wallets, Tencent Cloud's CLI profiles.
const keyExtensions = [".ovpn", ".keytab", ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".bks", ".p8", ".ppk", ".kdbx", ".kubeconfig", ".keyring", ".nmconnection", ".kwl", ".credential"]
/** `prod.env`, `prod.env.local`, `api.env.staging`: an environment file by another name (templates excepted). */
const namedEnv = /\.env(\.(local|prod|production|dev|development|stage|staging|test|ci|preview|qa|uat))*$/
/** Terraform keeps provider credentials in variable files and every resource's secrets in its state. */
const stateExtensions = [".tfvars", ".tfvars.json", ".tfstate", ".tfstate.backup"]
/** A folder and a file in it that together hold credentials (the folder alone holds ordinary files too). */
const secretPairs: ReadonlyArray<readonly [string, string]> = [
  [".docker", "config.json"],
  [".cargo", "credentials"],
  [".cargo", "credentials.toml"],
  [".gem", "credentials"],
  [".composer", "auth.json"],
  ["gh", "hosts.yml"],
  [".config", "gcloud"],
  [".oci", "config"],
  [".m2", "settings.xml"],
  [".m2", "settings-security.xml"],
  [".gradle", "gradle.properties"],
  // `bundle config set --local <host> user:pass` keeps gem server credentials in the project's `.bundle/config`.
  [".bundle", "config"],
  // hub's GitHub token.
  [".config", "hub"],
  // CLIs' token stores: sops/age keys, Vercel, DigitalOcean, Hetzner, Fly.io, Firebase, Cloudflare wrangler,
  // Netlify, MinIO, GitLab, Pulumi, Kaggle, Hugging Face, ngrok, Stripe, Railway, Supabase, Heroku.
  ["age", "keys.txt"],
  [".vercel", "auth.json"],
  ["com.vercel.cli", "auth.json"],
  ["doctl", "config.yaml"],
  ["hcloud", "cli.toml"],
  [".fly", "config.yml"],
  ["flyctl", "config.yml"],
  ["configstore", "firebase-tools.json"],
  [".wrangler", "config"],
  ["wrangler", "config"],
  ["netlify", "config.json"],
  [".netlify", "config.json"],
  [".mc", "config.json"],
  ["mc", "config.json"],
  ["glab-cli", "config.yml"],
  [".pulumi", "credentials.json"],
  [".kaggle", "kaggle.json"],
  ["kaggle", "kaggle.json"],
  [".huggingface", "token"],
  ["huggingface", "token"],
  ["ngrok", "ngrok.yml"],
  [".ngrok2", "ngrok.yml"],
  ["stripe", "config.toml"],
  [".railway", "config.json"],
  [".supabase", "access-token"],
  ["heroku", "credentials"],
  // Index URLs with tokens in pip's user config; Snowflake's CLI password; NuGet's user config
  // (`packageSourceCredentials`, `ClearTextPassword`), not a project's own `NuGet.Config`.
  [".pip", "pip.conf"],
  ["pip", "pip.conf"],
  ["pip", "pip.ini"],
  [".snowsql", "config"],
  ["nuget", "nuget.config"],
  // Coding agents' and assistants' own logins (OAuth tokens, API keys): Codex CLI, Gemini CLI, GitHub Copilot.
  [".codex", "auth.json"],
  [".gemini", "oauth_creds.json"],
  ["github-copilot", "hosts.json"],
  ["github-copilot", "apps.json"],
  // Registry and cluster passwords (podman/buildah, Helm), CircleCI's and Scaleway's CLI tokens, Expo's session,
  // Composer's user auth, the 1Password (its old folder) and Bitwarden CLIs' stores, svn's cached logins, MinIO's keys.
  ["containers", "auth.json"],
  ["helm", "repositories.yaml"],
  [".circleci", "cli.yml"],
  ["scw", "config.yaml"],
  [".expo", "state.json"],
  ["composer", "auth.json"],
  [".op", "config"],
  ["bitwarden cli", "data.json"],
  [".subversion", "auth"],
  [".minio", "config.json"],
  // Red team 9: VS Code's SFTP extension, dbt's warehouse profiles, Snowflake's CLI, Poetry's stored logins, Hex,
  // Cloud Foundry, IBM Cloud, Alibaba Cloud, Doppler, Travis CI's and GitLab Runner's tokens, OpenStack's split
  // secrets, Talos, Cachix, Turso, Render, PlanetScale, WeeChat's and irssi's passwords, InfluxDB's and ClickHouse's
  // clients, Exoscale.
  [".vscode", "sftp.json"],
  [".dbt", "profiles.yml"],
  [".snowflake", "connections.toml"],
  [".snowflake", "config.toml"],
  ["pypoetry", "auth.toml"],
  [".hex", "hex.config"],
  [".cf", "config.json"],
  [".bluemix", "config.json"],
  [".aliyun", "config.json"],
  [".doppler", ".doppler.yaml"],
  [".travis", "config.yml"],
  [".gitlab-runner", "config.toml"],
  ["gitlab-runner", "config.toml"],
  ["openstack", "secure.yaml"],
  [".talos", "config"],
  ["cachix", "cachix.dhall"],
  ["turso", "settings.json"],
  [".render", "cli.yaml"],
  ["planetscale", "access-token"],
  [".weechat", "sec.conf"],
  ["weechat", "sec.conf"],
  [".irssi", "config"],
  [".influxdbv2", "configs"],
  [".clickhouse-client", "config.xml"],
  ["exoscale", "exoscale.toml"]
]
/**
 * Globs (gitignore syntax, matched case-insensitively) for what is secret wherever it is, for a search engine to
 * leave out before it reads anything (ripgrep's exclusions). Not the rule: every path it returns is still judged by
 * `protectedName`. Folders only: a glob naming a file names a folder too (ripgrep has no glob for files alone), and
 * a folder named like a secret file holds source code that is searched (`credentials/tls.go`, a `.env/` virtualenv).
 */
export const alwaysSecretGlobs: ReadonlyArray<string> = [...secretDirs].map((d) => `${d}/`)

/** `secretPairs` by folder. */
export const secretPairFiles: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [...new Set(secretPairs.map(([dir]) => dir))].map((dir) => [dir, new Set(secretPairs.filter(([d]) => d === dir).map(([, f]) => f))])
)
export const systemSecrets = new Set(["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/master.passwd"])

/**
 * The lower-cased segments the name rules look at. Inside the workspace only the workspace-relative part counts: a
 * root that happens to live below a folder named like a secret does not make every file secret.
 */
export const scopedSegments = (absolute: string, root: string | undefined): ReadonlyArray<string> => {
  const scoped = root !== undefined && P.isInside(root, absolute) ? P.relative(root, absolute) : absolute
  return P.segments(scoped).map((s) => s.toLowerCase())
}

/** Why the whole path is a secret before its segments are looked at. */
export const wholePathSecret = (absolute: string): string | undefined => {
  const lower = absolute.toLowerCase()
  if (systemSecrets.has(lower)) return `${lower} holds system credentials`
  if (/^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/.test(lower)) return "a process environment holds secrets"
  return undefined
}

/**
 * The names a segment is a copy of (itself first). Folders' copies are looked for only in names holding a dot: every
 * secret or paired folder's name starts with one (`gh` aside), and so does every decorated form of it (`.ssh (1)`,
 * `Copy of .aws`, `#.ssh#`).
 */
export const copiesOf = (seg: string, last: boolean): ReadonlyArray<string> => (last || seg.includes(".") ? undecorated(seg) : [seg])

/** A folder's readings as a copy (`credentials (1)`); letters and digits only: none (a decoration has another character). */
const folderReadings = (seg: string): ReadonlyArray<string> => (/^[a-z0-9]*$/.test(seg) ? [seg] : undecorated(seg))

/**
 * Why a folder named like a secret file (`credentials/`, `.env/`, `secrets.d/`, `id_rsa.bak/`) protects what it
 * holds, or undefined: everything below it but source code (`credentials/tls.go`, SourceNames.ts) is protected.
 */
export const namedFolderReason = (seg: string): string | undefined => {
  const known = namedMemo.get(seg)
  if (known !== undefined) return known === null ? undefined : known
  const reason = namedFolderReasonOf(seg)
  // Folder names repeat across paths (`src`, `node_modules`): judged once in a while, not per path (2x protectedName).
  if (namedMemo.size >= 4096) namedMemo.clear()
  namedMemo.set(seg, reason ?? null)
  return reason
}
const namedMemo = new Map<string, string | null>()
const namedFolderReasonOf = (seg: string): string | undefined => {
  const readings = folderReadings(seg)
  if (readings.length > mostReadings) return `${seg}/ has too many readings as a copy of another name to judge`
  const code = isCode(readings)
  for (const name of readings) {
    if (fileSecret(name, code) !== undefined) return `${seg}/ is named like a secret file: what it holds is protected, source code aside`
  }
  return undefined
}

/**
 * `folder`: the last segment is an existing folder, judged by the folder rules only (a folder named like a secret
 * file is not a secret: what it holds is judged by its own names).
 */
const secretSegments = (segs: ReadonlyArray<string>, folder = false): string | undefined => {
  let copies = copiesOf(segs[0] ?? "", segs.length === 1 && !folder)
  let named: string | undefined
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? ""
    const last = i === segs.length - 1
    const next = segs[i + 1]
    const nextCopies = next === undefined ? undefined : copiesOf(next, i + 1 === segs.length - 1 && !folder)
    if (copies.length > mostReadings) return `${seg} has too many readings as a copy of another name to judge`
    // `.ssh/`, and a copy of it (`.ssh.bak/`, `.aws (1)/`, `Copy of .ssh/`).
    const dir = copies.find((d) => secretDirs.has(d))
    if (dir !== undefined) return dir === seg ? `${seg}/ holds credentials` : `${seg}/ is a copy of ${dir}/, which holds credentials`
    if (isDotGit(seg)) {
      const rest = segs.slice(i + 1)
      if (rest.includes("hooks")) return ".git/hooks/ runs code outside any sandbox"
      const tail = rest[rest.length - 1]
      if (tail === "config" || tail === "config.worktree") return ".git/config can run programs and hold credentials"
    }
    if (nextCopies !== undefined) {
      for (const d of copies) {
        const pairFiles = secretPairFiles.get(d)
        if (pairFiles !== undefined && nextCopies.some((n) => pairFiles.has(n))) return `${seg}/${next} holds credentials`
      }
    }
    // A folder named like an env file is treated as one: what it holds is secret, and no write may create it.
    if ((!last || folder) && (seg === ".env" || seg.startsWith(".env.")) && !envTemplates.has(seg)) return `${seg} holds environment secrets`
    if (last && folder) return undefined
    if (!last) {
      // A folder named like another secret file (`credentials/`): judged once the name is known.
      named ??= namedFolderReason(seg)
      copies = nextCopies ?? []
      continue
    }
    const code = isCode(copies)
    for (const name of copies) {
      const why = fileSecret(name, code)
      if (why !== undefined) return name === seg ? why : `${seg} is a copy of a secret file: ${why}`
    }
    if (named !== undefined && !code) return named
  }
  return undefined
}

/**
 * Why a file name is a secret by itself (its folder aside), or undefined. By exact name (`wp-config.php`) and by
 * extension (`*.pem`) whatever the name; by stem (`secrets.*`, `.env.*`) only when it is not source code (`code`:
 * SourceNames.isCode of its readings, `secrets.py`).
 */
export const fileSecret = (seg: string, code = isCode([seg])): string | undefined => {
  if (secretNames.has(seg)) return `${seg} holds credentials`
  if (keyExtensions.some((ext) => seg.endsWith(ext))) return `${seg} looks like a private key or certificate store`
  if (stateExtensions.some((ext) => seg.endsWith(ext))) return `${seg} holds infrastructure secrets (Terraform variables or state)`
  if (code) return undefined
  if ((seg === ".env" || seg.startsWith(".env.")) && !envTemplates.has(seg)) return `${seg} holds environment secrets`
  // `.env-prod`, `.env_local`: an environment file by another spelling (templates excepted).
  if (/^\.env[-_]/.test(seg) && !/^\.env[-_](example|sample|template|dist|defaults?)$/.test(seg)) return `${seg} holds environment secrets`
  if (namedEnv.test(seg)) return `${seg} holds environment secrets`
  if (seg.startsWith("secrets.")) return `${seg} holds secrets`
  // Google's OAuth client download: `client_secret_<id>.apps.googleusercontent.com.json`.
  if (/^client_secret.*\.json$/.test(seg)) return `${seg} holds an OAuth client secret`
  // Firebase Admin's service-account key download: `<project>-firebase-adminsdk-<id>-<key id>.json`.
  if (/firebase-adminsdk.*\.json$/.test(seg)) return `${seg} holds a service-account key`
  // Ansible and friends' vault password files, in each spelling (`.vault-password`, `vault_pass_file.txt`).
  if (/^\.?vault[-_.]?pass(word)?([-_.]?file)?(\.txt)?$/.test(seg)) return `${seg} holds a vault password`
  // Any tool's dot-history (`.psql_history`, `.duckdb_history`): commands typed with passwords in them.
  if (/^\.[a-z0-9._-]+_history$/.test(seg)) return `${seg} is a command history (typed passwords and tokens)`
  // WireGuard's interfaces (`wg0.conf`: the private key) and JFrog's CLI (`jfrog-cli.conf.v6`: access tokens).
  if (/^wg\d+\.conf$/.test(seg) || /^jfrog-cli\.conf(\.v\d+)?$/.test(seg)) return `${seg} holds credentials`
  return undefined
}

const stateSegments = (segs: ReadonlyArray<string>): boolean =>
  segs.some((s, i) => s === ".minicode" || (s === ".config" && segs[i + 1] === "minicode"))

/**
 * Why a path is a secret, or undefined. Matched on segments, case-insensitively, and it holds for paths that do
 * not exist yet (protection is by name, not by content).
 */
export const sensitiveReason = (absolute: string, root?: string): string | undefined =>
  wholePathSecret(absolute) ?? secretSegments(scopedSegments(absolute, root))

/** `/proc/<pid>/root`, `/proc/self/cwd`, `/dev/fd/3`…: aliases that reach any file through the kernel. */
export const isProcAlias = (absolute: string): boolean =>
  /^\/proc\/[^/]+\/(task\/[^/]+\/)?(root|cwd|exe|fd|fdinfo|map_files|mem|environ)(\/|$)/.test(absolute) ||
  /^\/dev\/(fd|stdin|stdout|stderr)(\/|$)/.test(absolute)

/** `.minicode/` anywhere (scoped to the workspace-relative part inside it) and the global config folder. */
export const isStatePath = (absolute: string, root?: string): boolean => stateSegments(scopedSegments(absolute, root))

/**
 * `isStatePath` first, then `sensitiveReason`, splitting the path once: for callers that ask both of many paths
 * (the bash guard's glob candidates).
 */
export const protectedName = (absolute: string, root?: string): { readonly kind: "state" } | { readonly kind: "secret"; readonly reason: string } | undefined => {
  const segs = scopedSegments(absolute, root)
  if (stateSegments(segs)) return { kind: "state" }
  const reason = wholePathSecret(absolute) ?? secretSegments(segs)
  return reason === undefined ? undefined : { kind: "secret", reason }
}

/**
 * `protectedName` for an existing folder: its own name judged by the folder rules only (`.ssh/` is a secret,
 * `credentials/` is not: what it holds is judged by its names, `credentials/tls.go` as code, `credentials/prod.json`
 * as a secret). For the sandbox's scan and the file tools' folder arguments (list_dir, grep, glob).
 */
export const protectedFolder = (absolute: string, root?: string): ReturnType<typeof protectedName> => {
  const segs = scopedSegments(absolute, root)
  if (stateSegments(segs)) return { kind: "state" }
  const reason = wholePathSecret(absolute) ?? secretSegments(segs, true)
  return reason === undefined ? undefined : { kind: "secret", reason }
}

/** Every rule a non-read access adds to the names: minicode state, secrets, then git's folder. */
const protectedForChange = (ctx: JailContext, absolute: string): JailVerdict => {
  if (isStatePath(absolute, ctx.root)) return no("jail.minicode-state", "minicode's own state (.minicode/) is not for tools")
  const secret = sensitiveReason(absolute, ctx.root)
  if (secret !== undefined) return no("jail.sensitive", `${shown(ctx, absolute)} is protected: ${secret}`)
  const git = gitReason(scopedSegments(absolute, ctx.root))
  if (git !== undefined) return no("jail.git-internals", `${shown(ctx, absolute)} is protected: ${git}`)
  return ok
}

/**
 * A folder that a structural call moves or removes is judged with what it holds: `relative` is one entry found
 * inside it (found by the caller's bounded walk, symlinks not followed), and `bases` are the folder and, for a move,
 * where it lands. Denied when the entry is protected at either place: a move never makes a protected file
 * unprotected, and never plants a file where it would be protected (`x/config` moved to `.git`).
 */
export const checkContents = (ctx: JailContext, shown: string, bases: ReadonlyArray<string>, relative: string): JailVerdict => {
  for (const base of bases) {
    const verdict = protectedForChange(ctx, P.join(base, relative))
    if (!verdict.ok) return no("jail.protected-inside", `${shown} holds ${shownPath(relative)}: ${verdict.reason}`)
  }
  return ok
}

/** Judges a resolved path for an access. Checks the name as given, the lexical path and the real path. */
export const check = (ctx: JailContext, facts: PathFacts, access: Access): JailVerdict => {
  if (facts.input.includes("\0")) return no("jail.nul-byte", "the path contains a NUL byte")
  if (facts.input.trim() === "") return no("jail.empty-path", "the path is empty")
  // Not separators here, but read as such by people and by other tools: `..\\..\\etc` is refused, not created.
  if (facts.input.includes("\\")) return no("jail.ambiguous-path", "backslashes are not path separators here; use / (a name with a backslash is refused as ambiguous)")
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(facts.input)) return no("jail.url-path", "a URL is not a path: name a file in the workspace")
  // The real path is judged only where it differs from the lexical one (the same string gets the same answers).
  const candidates = facts.real === facts.lexical ? [facts.lexical] : [facts.lexical, facts.real]
  // Each candidate's segments split once, for the state, secret and git questions (each would split them again).
  const segments = candidates.map((c) => scopedSegments(c, ctx.root))
  for (const [k, candidate] of candidates.entries()) {
    const segs = segments[k] ?? []
    if (isProcAlias(candidate)) return no("jail.proc-alias", `${shownPath(candidate)} is a kernel alias for other files`)
    if (stateSegments(segs)) return no("jail.minicode-state", "minicode's own state (.minicode/) is not for tools")
    // An existing folder is judged as a folder (`credentials/` may be listed); changing it judges its name as a file's.
    const secret = wholePathSecret(candidate) ?? secretSegments(segs, facts.kind === "directory")
    if (secret !== undefined) return no("jail.sensitive", `${shown(ctx, candidate)} is protected: ${secret}`)
  }
  if (!ctx.unrestricted) {
    if (!P.isInside(ctx.root, facts.lexical)) {
      return no("jail.outside-workspace", `${shownPath(facts.input)} is outside the workspace`)
    }
    if (!P.isInside(ctx.root, facts.real)) {
      return facts.dangling
        ? no("jail.symlink-escape", `${shownPath(facts.input)} is a dangling symlink that points outside the workspace`)
        : no("jail.symlink-escape", `${shownPath(facts.input)} leads outside the workspace through a symlink`)
    }
  }
  if (access === "read") {
    for (const [k, candidate] of candidates.entries()) {
      const git = gitReadReasonOf(segments[k] ?? [])
      if (git !== undefined) return no("jail.git-internals", `${shown(ctx, candidate)} is protected: ${git}`)
    }
  }
  if (access !== "read") {
    // The entry itself is what a move or delete acts on (a final symlink is not followed).
    for (const candidate of [facts.lexical, facts.real, facts.entry]) {
      const verdict = protectedForChange(ctx, candidate)
      if (!verdict.ok) return verdict
    }
    if (facts.real === ctx.root || facts.entry === ctx.root) return no("jail.workspace-root", "the workspace root itself cannot be written or removed")
    if (facts.kind === "file" && facts.nlink > 1) {
      return no("jail.hardlink", `${facts.input} has ${facts.nlink} hard links; writing it would change another file`)
    }
  }
  return ok
}

/** A path as shown to users: workspace-relative inside, absolute outside. */
export const display = (ctx: Pick<JailContext, "root">, absolute: string): string =>
  P.isInside(ctx.root, absolute) ? P.relative(ctx.root, absolute) || "." : absolute

/** `display` as a message shows it: quoted when the name holds a control character (`shownPath`). Not for data. */
export const shown = (ctx: Pick<JailContext, "root">, absolute: string): string => shownPath(display(ctx, absolute))

/**
 * The lexical half of the jail, for callers that cannot resolve links (the bash guard judging a command before it
 * runs): expands `~`, resolves against `cwd`, and judges as if no symlink were on the way.
 */
export const checkLexical = (ctx: JailContext, cwd: string, input: string, access: Access): JailVerdict => {
  const lexical = P.resolve(cwd, ctx.home !== undefined && (input === "~" || input.startsWith("~/")) ? ctx.home + input.slice(1) : input)
  const facts = { input, lexical, real: lexical, entry: lexical, exists: false, viaSymlink: false, dangling: false, kind: "missing", nlink: 0, dev: 0, ino: 0, mtimeMs: 0, size: 0, mode: 0 } as const
  return check(ctx, facts, access)
}
