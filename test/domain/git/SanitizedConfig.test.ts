import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as GitConfig from "../../../src/domain/git/GitConfig.js"
import * as S from "../../../src/domain/git/SanitizedConfig.js"

const T = "tok_9f8e7d6c5b4a"
const config = `[core]
\trepositoryformatversion = 0
\tbare = false
[remote "origin"]
\turl = https://x-access-token:${T}@github.com/acme/app.git
\tpushurl = "ssh://deploy:${T}@git.example.com:22/app.git"
\tfetch = +refs/heads/*:refs/remotes/origin/*
[submodule "lib"]
\turl = https://${T}@example.com/lib.git
[http "https://github.com/"]
\textraHeader = AUTHORIZATION: basic ${T}
\tsslVerify = true
[HTTP]
\tExtraHeader = Authorization: Bearer ${T}
[credential]
\thelper = store
[credential "https://example.com"]
\tusername = ${T}
[url "https://oauth2:${T}@gitlab.com/"]
\tinsteadOf = https://gitlab.com/
[include]
\tpath = ~/.secret-gitconfig
[includeIf "gitdir:~/work/"]
\tpath = work.inc
[github]
\ttoken = ${T}
[hub]
\toauthtoken = ${T}
[alias]
\tst = status --short
\tweird = "!echo \\"quoted\\" \\\\ back"
[user]
\tname = Dev ; a comment
\temail = dev@example.com
[pull]
\trebase
`

const keys = (text: string): ReadonlyArray<string> => {
  const parsed = GitConfig.parse(text)
  assert.isTrue(parsed.ok)
  return parsed.ok ? parsed.entries.map((e) => `${GitConfig.keyOf(e)}=${e.value ?? "(true)"}`) : []
}

describe("SanitizedConfig.sanitize", () => {
  const out = S.sanitize(config)

  it("keeps no credential: userinfo stripped from URLs, extraHeader, credential.*, tokens and includes removed", () => {
    assert.notInclude(out, T)
    assert.notMatch(out, /extraheader|credential|include|token/i)
  })

  it("keeps everything else, with the same meaning", () => {
    assert.deepStrictEqual(keys(out), [
      "core.repositoryformatversion=0",
      "core.bare=false",
      "remote.origin.url=https://github.com/acme/app.git",
      "remote.origin.pushurl=ssh://git.example.com:22/app.git",
      "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*",
      "submodule.lib.url=https://example.com/lib.git",
      "http.https://github.com/.sslverify=true",
      "url.https://gitlab.com/.insteadof=https://gitlab.com/",
      "alias.st=status --short",
      'alias.weird=!echo "quoted" \\ back',
      "user.name=Dev",
      "user.email=dev@example.com",
      "pull.rebase=(true)"
    ])
  })

  it("a file git would reject is shown empty; an empty file stays empty", () => {
    assert.strictEqual(S.sanitize(`[remote "origin"\n\turl = https://u:${T}@h/x\n`), "")
    assert.strictEqual(S.sanitize("0123abcd refs/heads/main\n"), "")
    assert.strictEqual(S.sanitize(""), "")
  })

  const value = FastCheck.string({ unit: FastCheck.constantFrom("a", "b", " ", "\\", '"', "\t", "#", ";", "=", "x") , maxLength: 12 })
  it.prop("round trip: whatever survives parses back to the same entries", { v: value, sub: value }, ({ v, sub }) => {
    const quote = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\t/g, "\\t")
    const text = `[sec "${quote(sub)}"]\n\tname = "${quote(v)}"\n`
    const once = S.sanitize(text)
    assert.deepStrictEqual(keys(once), keys(text))
  })

  it("git itself reads the sanitized file as the same configuration minus the credentials", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sancfg-"))
    try {
      const file = path.join(dir, "config")
      fs.writeFileSync(file, out)
      const listed = execFileSync("git", ["config", "--file", file, "--list"], { encoding: "utf8" })
      assert.notInclude(listed, T)
      assert.include(listed, "remote.origin.url=https://github.com/acme/app.git\n")
      assert.include(listed, 'alias.weird=!echo "quoted" \\ back\n')
      assert.include(listed, "pull.rebase\n")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
