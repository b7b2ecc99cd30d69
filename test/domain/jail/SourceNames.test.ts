/**
 * Issue 40, item 4: source code hidden as secrets by name. The one pure decision ("is this name a secret",
 * Jail.protectedName and its folder form) on the honest source files of the issue and on real credential files;
 * NameScope (grep's and glob's per-folder judge) and the sandbox scan's classification answer the same.
 */
import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as Jail from "../../../src/domain/jail/Jail.js"
import * as NameScope from "../../../src/domain/jail/NameScope.js"
import * as SourceNames from "../../../src/domain/jail/SourceNames.js"
import * as SP from "../../../src/domain/sandbox/SandboxProfile.js"

const root = "/ws"
const secret = (rel: string) => Jail.protectedName(`${root}/${rel}`, root)?.kind === "secret"

/** Honest source files the name rules hid (issue 40: 86 of them on a 60k-file monorepo). */
const honest = [
  "lib/python3.12/secrets.py", "secrets.py", "pkg/secrets.go", "src/secrets.test.ts", "src/secrets.ts", "app/secrets.rb",
  "credentials/tls.go", "credentials/alts/internal/handshaker.go", "aws/credentials/provider.go",
  "sdk/credentials/processcreds/provider_test.go", "src/credentials/index.ts", "Credentials/Store.cs",
  "credentials (1)/tls.go", "credentials.bak/tls.go", ".history/src/app_20240101.ts", "secrets.d/loader.py",
  "credentials/ui.html", "credentials/Main.java", "credentials/lib.rs", "credentials/tls.c", "credentials/tls.h",
  "credentials/Helper.kt", "credentials/Store.swift", "credentials/store.php", "secrets.py.bak", "secrets.js~",
  // names the rules never hid stay ordinary
  "settings.py", "src/credentials.ts", "client_secret.ts"
]

/** Real credential files: protected by exact name, by extension, by stem when not code, or by their folder. */
const credentials = [
  "credentials", "deploy/credentials", "credentials.json", ".aws/credentials", "secrets.yaml", "secrets.yml",
  "secrets.json", "secrets.toml", "secrets.env", ".env", ".env.local", ".env.production", "x.pem", "tls.key", "id_rsa",
  "release.keystore", ".npmrc", ".netrc", ".pgpass", "site/wp-config.php", "infra/secrets.tfvars", "prod.tfvars",
  // what a folder named like a secret file holds, source code aside
  "credentials/prod.json", "credentials/prod.yaml", "credentials/token", "credentials/sub/key.txt", "credentials/.env",
  "credentials/setup.sh", "credentials/config.ini", "credentials/app.properties", "credentials/settings.xml",
  "credentials (1)/prod.json", "credentials.bak/prod.json", ".env/token", "config/.env/a", ".env.local/x",
  "secrets.d/prod.yaml", "id_rsa.bak/key", ".secrets/api.txt",
  // shell scripts and configuration scripts are not code here (secrets.sh, .env.ps1: exported variables)
  "secrets.sh", ".env.ps1", "secrets.ps1", ".env.bat", "secrets.groovy", "secrets.tf", "secrets.exs",
  // secret folders stay secret whole, code in them too
  ".ssh/helper.py", ".aws/cli/alias.py",
  // a folder named like an env file is one, whole (a `.env/` virtualenv too): masked as one, not file by file
  ".env/lib/python3.12/site-packages/requests/auth.py", ".env.local/x.py", ".docker/config.json", ".config/gcloud/legacy_credentials/x.py",
  // key and state files by extension, whatever else their name says
  "secrets.py.pem", "tls.go.key"
]

describe("the secret-name decision (issue 40)", () => {
  it.each(honest)("%s is source code: readable, writable, searched", (rel) => {
    expect(Jail.protectedName(`${root}/${rel}`, root), rel).toBeUndefined()
    for (const access of ["read", "write"] as const) expect(Jail.checkLexical({ root, unrestricted: false }, root, rel, access).ok, `${rel} ${access}`).toBe(true)
  })

  it.each(credentials)("%s stays protected", (rel) => {
    expect(secret(rel), rel).toBe(true)
    for (const access of ["read", "write", "structure"] as const) expect(Jail.checkLexical({ root, unrestricted: false }, root, rel, access).ok, `${rel} ${access}`).toBe(false)
  })

  it("a folder named like a secret file is a folder, not a secret; secret folders stay secret", () => {
    for (const dir of ["credentials", "aws/credentials", "credentials (1)", "secrets.d", ".history", "id_rsa.bak", "credentials/sub"]) {
      expect(Jail.protectedFolder(`${root}/${dir}`, root), dir).toBeUndefined()
      // as a file name (what a write would create) it stays a secret
      expect(secret(dir), dir).toBe(true)
      expect(SP.classify(root, `${root}/${dir}`, "directory"), dir).toBe("hold")
    }
    for (const dir of [".ssh", ".aws", ".ssh.bak", ".gnupg", ".env", ".env.local", "config/.env"]) {
      expect(Jail.protectedFolder(`${root}/${dir}`, root)?.kind, dir).toBe("secret")
      expect(SP.classify(root, `${root}/${dir}`, "directory"), dir).toBe("mask")
    }
    expect(SP.classify(root, `${root}/credentials/tls.go`, "file")).toBe("keep")
    expect(SP.classify(root, `${root}/credentials/prod.json`, "file")).toBe("mask")
    expect(SP.classify(root, `${root}/src`, "directory")).toBe("descend")
  })

  it("the jail lists a folder named like a secret file, and judges what it holds by name", () => {
    const facts = (rel: string, kind: Jail.PathFacts["kind"]): Jail.PathFacts => {
      const abs = `${root}/${rel}`
      return { input: rel, lexical: abs, real: abs, entry: abs, exists: true, viaSymlink: false, dangling: false, kind, nlink: 1, dev: 1, ino: 2, mtimeMs: 0, size: 0, mode: 0o755 }
    }
    const ctx: Jail.JailContext = { root, unrestricted: false }
    expect(Jail.check(ctx, facts("credentials", "directory"), "read").ok).toBe(true)
    expect(Jail.check(ctx, facts(".ssh", "directory"), "read").ok).toBe(false)
    // the same name as a file, and any change to the folder itself, is judged as before
    expect(Jail.check(ctx, facts("credentials", "file"), "read").ok).toBe(false)
    expect(Jail.check(ctx, facts("credentials", "directory"), "structure").ok).toBe(false)
  })

  it("code is told by the last extension, in any reading as a copy; config, data and scripts are not code", () => {
    for (const n of ["tls.go", "secrets.test.ts", "a.py", ".env.js"]) expect(SourceNames.isCodeName(n), n).toBe(true)
    for (const n of [".py", "secrets.json", "secrets.yaml", "secrets.sh", "secrets.ps1", "secrets", "credentials", "x.tf", "x.md", "x.txt", "x.ipynb"]) {
      expect(SourceNames.isCodeName(n), n).toBe(false)
    }
  })

  // NameScope answers as protectedName on the whole path, with folders named like secret files among the folders.
  const segment = FastCheck.constantFrom(
    "a", "src", "credentials", "Credentials", "credentials (1)", "credentials.bak", "secrets.d", ".env", ".env.example", ".history", "id_rsa",
    ".ssh", ".docker", "config.json", "tls.go", "secrets.py", "secrets.py.bak", "secrets.yaml", "prod.json", "token", "setup.sh", "wp-config.php",
    "x.pem", ".git", "hooks", "config", ".minicode", "lib.rs", "..", "."
  )
  it("NameScope answers as protectedName on every path built of such folders", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom("/ws", "/ws/a", "/elsewhere"), FastCheck.array(segment, { maxLength: 5 }), segment, (start, folders, name) => {
        let scope = NameScope.nameScope(start, root)
        let dir = start
        for (const f of folders) {
          scope = NameScope.childOf(scope, f)
          dir = `${dir}/${f}`
        }
        expect(NameScope.judgeIn(scope, name), `${dir}/${name}`).toEqual(Jail.protectedName(`${dir}/${name}`, root))
        expect(NameScope.judgeIn(NameScope.nameScope(dir, root), name), `${dir}/${name}`).toEqual(Jail.protectedName(`${dir}/${name}`, root))
      }),
      { numRuns: 3000 }
    )
  })
})
