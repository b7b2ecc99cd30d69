/** The jail's pure rules on protected names: secrets, git's folder, and what a folder holds (issue 19). */
import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as Jail from "../../../src/domain/jail/Jail.js"
import * as NameScope from "../../../src/domain/jail/NameScope.js"

const ctx: Jail.JailContext = { root: "/ws", unrestricted: false }
const verdict = (path: string, access: Jail.Access) => Jail.checkLexical(ctx, "/ws", path, access)
const ruleOf = (path: string, access: Jail.Access) => {
  const v = verdict(path, access)
  return v.ok ? "allow" : v.rule
}

describe("git's folder, read", () => {
  it.each([".git/COMMIT_EDITMSG", ".git/lost-found/other/ab12", ".git/rr-cache/x/preimage", ".git/rebase-apply/0001", ".git/objects/ab/cdef", ".git/index", ".git/worktrees/wt/COMMIT_EDITMSG", ".git/modules/lib/objects/pack/p.pack", "sub/.git/MERGE_MSG"])(
    "%s is refused: it holds copies of file contents",
    (p) => expect(ruleOf(p, "read")).toBe("jail.git-internals")
  )
  it.each([".git", ".git/HEAD", ".git/refs/heads/main", ".git/packed-refs", ".git/logs/HEAD", ".git/info/exclude", ".git/worktrees/wt/HEAD", ".git/worktrees", ".git/modules/lib/HEAD", "src/git.ts", "gitdir/COMMIT_EDITMSG"])(
    "%s can be read",
    (p) => expect(ruleOf(p, "read")).toBe("allow")
  )
})

describe("secret names", () => {
  const secrets = [
    ".envrc", "config/prod.env", "deploy/STAGING.ENV", ".pgpass", ".pypirc", ".vault-token", "infra/prod.tfvars",
    "infra/x.auto.tfvars.json", "infra/terraform.tfstate", "infra/terraform.tfstate.backup", "android/release.jks",
    "android/release.keystore", "ios/cert.p12", "store.bks", "AuthKey.p8", "putty.ppk", "vault.kdbx", "web/.htpasswd",
    ".git-credentials", ".boto", ".s3cfg", ".dockercfg", ".my.cnf", ".terraformrc", "terraform.rc",
    ".terraform.d/credentials.tfrc.json", ".cargo/credentials.toml", ".cargo/credentials", ".gem/credentials",
    ".composer/auth.json", ".config/gh/hosts.yml", ".docker/config.json", "config/prod.env.local", "api.env.staging",
    "kubeconfig", "cluster.kubeconfig", ".config/gcloud/credentials.db", "application_default_credentials.json",
    ".oci/config", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
    // a folder named like an env file: what it holds is secret, so no write can create one (property seed 1082261437)
    "config/.env/a", ".env.local/x",
    // copies under the names editors, tools and people give them (red team)
    ".env~", "#.env#", ".env-prod", ".env_local", "prod.env.bak", ".npmrc.bak", "id_rsa.bak", "id_ed25519~", "server.key.orig",
    "credentials.json.old", "terraform.tfstate.1699999999.backup", ".id_rsa.swp", ".docker/config.json.bak",
    // credential files by the names their tools give them (red team, after the first lists)
    "credentials", "deploy/credentials.bak", ".dev.vars", ".yarnrc.yml", ".yarnrc", ".secrets", ".secret", ".gitcookies",
    "firebase/serviceAccountKey.json", "service-account.json", "gcp/service_account.json", ".config/rclone/rclone.conf",
    "client_secret_123.apps.googleusercontent.com.json", ".password-store/github.gpg",
    // tools' own stores and histories by families, not only the red team's names
    ".vault-password", "ansible/vault_pass_file.txt", ".duckdb_history", ".clickhouse-client-history_history", "krb5.keytab",
    "ops/acme-firebase-adminsdk-x1y2z-0a1b2c3d4e.json", "client.ovpn"
  ]
  it.each(secrets)("%s is denied for read, write and structure", (p) => {
    for (const access of ["read", "write", "structure"] as const) expect(ruleOf(p, access), `${p} ${access}`).toBe("jail.sensitive")
  })

  const honest = [
    "config/prod.env.example", ".env.example", ".env-example", ".env_sample", "notes.bak", "src/app.ts~", "src/env.ts", "environment.ts", "infra/main.tf", "infra/prod.tfvars.example",
    "docs/keystore.md", "auth.json", ".cargo/config.toml", ".docker/Dockerfile", "gh/README.md", "src/config.ts",
    "src/vite-env.d.ts", "src/prod.env.ts", "config/prod.env.sample", "gradle.properties", "pom.xml", "settings.xml", ".config/nvim/init.lua",
    "src/credentials/index.ts", "src/credentials.ts", ".yarn/releases/yarn.cjs", "client_secret.ts",
    "src/history.ts", "src/load_history.py", "vault.md", "docs/vault-password-rotation.md"
  ]
  it.each(honest)("%s is an ordinary file", (p) => {
    for (const access of ["read", "write", "structure"] as const) expect(ruleOf(p, access), `${p} ${access}`).toBe("allow")
  })
})

describe("git's folder", () => {
  it("is readable but never written, moved or removed, whatever the spelling", () => {
    expect(ruleOf(".git/HEAD", "read")).toBe("allow")
    expect(ruleOf(".git", "read")).toBe("allow")
    // Its config and hooks stay secret to read under every spelling too.
    for (const p of [".GIT/config", ".git./config", ".g\u200cit/hooks/pre-commit", "GIT~1/config"]) expect(ruleOf(p, "read"), p).toBe("jail.sensitive")
    const spellings = [
      ".git", ".git/commondir", ".git/objects/info/alternates", ".git/info/attributes", ".git/HEAD", "src/.git",
      "vendor/lib/.git/modules/x", ".GIT/commondir", ".Git", ".git./x", ".git /x", ".git../x", ".g\u200cit/x", "\ufeff.git/x", "GIT~1/x"
    ]
    for (const p of spellings) {
      expect(ruleOf(p, "write"), p).toBe("jail.git-internals")
      expect(ruleOf(p, "structure"), p).toBe("jail.git-internals")
    }
    for (const p of [".gitignore", ".github/workflows/ci.yml", ".gitattributes", "git/x", "src/my.git.ts", ".git-blame-ignore-revs"]) {
      expect(ruleOf(p, "write"), p).toBe("allow")
    }
  })

  it("a workspace that itself lives below a .git folder is not all protected", () => {
    const inner: Jail.JailContext = { root: "/repo/.git/ws", unrestricted: false }
    expect(Jail.checkLexical(inner, "/repo/.git/ws", "a.txt", "write").ok).toBe(true)
  })
})

describe("what a folder holds", () => {
  it("denies a folder whose entry is protected where it is or where it lands", () => {
    const deny = (bases: ReadonlyArray<string>, rel: string) => {
      const v = Jail.checkContents(ctx, "a", bases, rel)
      return v.ok ? "allow" : v.rule
    }
    expect(deny(["/ws/a"], ".git")).toBe("jail.protected-inside")
    expect(deny(["/ws/a"], "b/.ssh")).toBe("jail.protected-inside")
    expect(deny(["/ws/a"], "deploy/prod.env")).toBe("jail.protected-inside")
    expect(deny(["/ws/a"], ".minicode")).toBe("jail.protected-inside")
    expect(deny(["/ws/a"], "src/app.ts")).toBe("allow")
    // Lands where it would be protected: a plain `config.json` moved to `.docker`, `hooks/x` moved into `.git`.
    expect(deny(["/ws/dk", "/ws/.docker"], "config.json")).toBe("jail.protected-inside")
    expect(deny(["/ws/dk", "/ws/sub/.docker"], "config.json")).toBe("jail.protected-inside")
    expect(deny(["/ws/dk", "/ws/docker"], "config.json")).toBe("allow")
    const v = Jail.checkContents(ctx, "a", ["/ws/a"], "b/.git")
    expect(!v.ok && v.reason).toContain("a/b/.git")
  })
})

describe("protectedNameIn", () => {
  it("answers as protectedName for every name of a directory", () => {
    const root = "/ws"
    const dirs = ["/ws", "/ws/a", "/ws/.git", "/ws/x/.GIT", "/ws/.docker", "/ws/.ssh", "/ws/.env", "/ws/.Cargo", "/ws/.minicode", "/ws/.config", "/etc", "/proc/1", "/ws/.g\u200cit", "/ws/git~1", "/ws/.git./hooks"]
    const names = ["x.ts", "config", "hooks", "config.json", "credentials", ".env", ".env.example", "id_rsa", "a.pem", "secrets.yml", "prod.env.local", "shadow", "environ", "minicode", "gcloud", "README.md", ".GIT", "Config"]
    for (const dir of dirs) {
      const judge = NameScope.protectedNameIn(dir, root)
      for (const name of names) expect(judge(name), `${dir}/${name}`).toEqual(Jail.protectedName(`${dir}/${name}`, root))
    }
  })

  // The scopes PathJudge builds folder by folder (`childOf`) carry what was found above: each must answer as
  // `protectedName` on the whole path, whatever the folders above (secret folders, pairs, env folders, `.git`,
  // state, copies' spellings, outside the root, `/etc`, `/proc`).
  const segment = FastCheck.constantFrom(
    "a", "src", ".ssh", ".SSH", ".ssh.bak", "Copy of .aws", ".docker", "docker", ".config", "minicode", ".minicode", "gcloud", ".env", ".env.local",
    ".env.example", ".git", ".GIT", "git~1", ".git.", "hooks", "config", "config.json", "credentials", "id_rsa", "id_rsa.bak", "a.pem", ".npmrc",
    "secrets.yml", "etc", "shadow", "proc", "1", "environ", "ws", "x.ts", "mod7.ts", "app-12", "Σ", "café", ".kube", "kube", ".cargo", "..", "."
  )
  it("answers as protectedName for every folder reached child by child", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom("/", "/ws", "/ws/a", "/etc", "/proc", "/elsewhere"), FastCheck.array(segment, { maxLength: 6 }), segment, (start, folders, name) => {
        let scope = NameScope.nameScope(start, "/ws")
        let dir = start
        for (const f of folders) {
          scope = NameScope.childOf(scope, f)
          dir = dir === "/" ? `/${f}` : `${dir}/${f}`
          expect(NameScope.judgeIn(NameScope.nameScope(dir, "/ws"), name), `${dir}/${name}`).toEqual(Jail.protectedName(`${dir}/${name}`, "/ws"))
        }
        expect(NameScope.judgeIn(scope, name), `${dir}/${name} (child by child)`).toEqual(Jail.protectedName(`${dir}/${name}`, "/ws"))
      }),
      { numRuns: 3000 }
    )
  })
})
