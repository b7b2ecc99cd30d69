/**
 * Red team (issue 19, secret names the list misses), files that hold passwords or tokens by names the jail did not
 * know: Emacs's auth-source (`.authinfo`, `.authinfo.gpg`), an encrypted netrc, msmtp's and fetchmail's accounts,
 * s3fs's keys, Apache's digest file, gcloud's token databases, a GNOME keyring, pip's user config with a token in its
 * index URL, Snowflake's CLI config and NuGet's user config. read_file, grep and sandboxed bash showed every one of
 * them (a dotfiles workspace holds them at these paths); an honest project `NuGet.Config` and `pip.conf.example`
 * are still read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, shownSecrets } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const files: Record<string, string> = {
  ".authinfo": "machine smtp.example.com login me password canary-authinfo\n",
  ".authinfo.gpg": "canary-authinfo-gpg\n",
  ".netrc.gpg": "canary-netrc-gpg\n",
  ".msmtprc": "account default\nhost smtp.example.com\npassword canary-msmtprc\n",
  "mail/.fetchmailrc": 'poll imap.example.com user "me" password "canary-fetchmailrc"\n',
  ".passwd-s3fs": "AKIAEXAMPLE:canary-passwd-s3fs\n",
  "conf/.htdigest": "me:realm:canary-htdigest\n",
  "backup/credentials.db": "canary-credentials-db\n",
  "backup/access_tokens.db": "canary-access-tokens-db\n",
  ".local/share/keyrings/login.keyring": "canary-keyring\n",
  ".config/pip/pip.conf": "[global]\nindex-url = https://me:canary-pip-conf@pypi.example.com/simple\n",
  ".pip/pip.conf": "[global]\nindex-url = https://me:canary-dot-pip@pypi.example.com/simple\n",
  ".snowsql/config": "[connections]\npassword = canary-snowsql\n",
  ".nuget/NuGet/NuGet.Config": '<configuration><packageSourceCredentials><x><add key="ClearTextPassword" value="canary-nuget-user" /></x></packageSourceCredentials></configuration>\n'
}

describe.skipIf(unavailable !== undefined)(title("mail, auth-source and tool credential files by names the jail did not know"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    expect(await shownSecrets(ws, files)).toEqual([])
  }, 120_000)

  it("a project's own NuGet.Config and a pip.conf example beside them are still read", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, "NuGet.Config"), '<configuration><packageSources><add key="nuget" value="https://api.nuget.org/v3/index.json" /></packageSources></configuration>\n')
    fs.writeFileSync(path.join(ws.root, "pip.conf.example"), "[global]\nindex-url = https://pypi.org/simple\n")
    expect(ws.tool("read_file", { path: "NuGet.Config" }).stdout).toContain("packageSources")
    expect(ws.tool("read_file", { path: "pip.conf.example" }).stdout).toContain("pypi.org")
  })
})
