/**
 * Red team (issue 19, secret names the list misses), files that hold passwords, keys or tokens by design, by names
 * the jail did not know: WordPress's `wp-config.php`, R's `.Renviron`, a service account's `keyfile.json`, Jenkins's
 * `credentials.xml`, adb's private key, coding agents' own logins (Codex CLI, Gemini CLI, GitHub Copilot, Claude
 * Code's `.claude.json`), registry and cluster passwords (podman, Helm), CLI tokens (CircleCI, Scaleway, OVH,
 * Linode, Expo, Composer, Bitwarden), svn's cached logins, Teleport's keys, MinIO's, and browsers' saved passwords
 * and cookies. read_file, grep and sandboxed bash showed every one of them (a home-folder workspace holds them at
 * these paths). Honest look-alikes (an i18n `auth.json`, a project's `gradle.properties`, `bunfig.toml`) still read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, shownSecrets } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const files: Record<string, string> = {
  "site/wp-config.php": "<?php define('DB_PASSWORD', 'canary-wp-config');\n",
  ".Renviron": "OPENAI_API_KEY=canary-renviron\n",
  "deploy/keyfile.json": '{"private_key":"canary-keyfile"}\n',
  "jenkins/credentials.xml": "<password>canary-jenkins</password>\n",
  ".android/adbkey": "canary-adbkey\n",
  ".codex/auth.json": '{"tokens":"canary-codex"}\n',
  ".gemini/oauth_creds.json": '{"access_token":"canary-gemini"}\n',
  ".config/github-copilot/hosts.json": '{"github.com":{"oauth_token":"canary-copilot-hosts"}}\n',
  ".config/github-copilot/apps.json": '{"x":{"oauth_token":"canary-copilot-apps"}}\n',
  ".claude.json": '{"primaryApiKey":"canary-claude-json"}\n',
  ".config/containers/auth.json": '{"auths":{"r":{"auth":"canary-podman"}}}\n',
  ".config/helm/repositories.yaml": "repositories:\n- password: canary-helm\n",
  ".circleci/cli.yml": "token: canary-circleci\n",
  ".config/scw/config.yaml": "secret_key: canary-scaleway\n",
  ".ovh.conf": "application_secret=canary-ovh\n",
  ".config/linode-cli": "token = canary-linode\n",
  ".expo/state.json": '{"auth":{"sessionSecret":"canary-expo"}}\n',
  ".config/composer/auth.json": '{"github-oauth":{"github.com":"canary-composer"}}\n',
  ".config/Bitwarden CLI/data.json": '{"accessToken":"canary-bitwarden"}\n',
  ".subversion/auth/svn.simple/5d1c": "password canary-svn\n",
  ".tsh/keys/proxy/me": "canary-teleport\n",
  ".minio/config.json": '{"secretKey":"canary-minio"}\n',
  ".mozilla/firefox/abc.default/logins.json": '{"logins":"canary-firefox-logins"}\n',
  ".mozilla/firefox/abc.default/key4.db": "canary-firefox-key4\n",
  ".config/chromium/Default/Login Data": "canary-chromium-logins\n",
  ".mozilla/firefox/abc.default/cookies.sqlite": "canary-firefox-cookies\n"
}

describe.skipIf(unavailable !== undefined)(title("application, agent and browser credential files by names the jail did not know"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    expect(await shownSecrets(ws, files)).toEqual([])
  }, 120_000)

  it("honest look-alikes are still read", () => {
    const ws = attackWorkspace(cleanups)
    const honest: Record<string, string> = {
      "public/locales/en/auth.json": '{"login":"Log in"}\n',
      "gradle.properties": "org.gradle.jvmargs=-Xmx2g\n",
      "bunfig.toml": "[install]\nexact = true\n",
      "src/containers/Login.tsx": "export const Login = () => null\n",
      "internal/op/config/load.go": "package config\n"
    }
    for (const [name, content] of Object.entries(honest)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, name)), { recursive: true })
      fs.writeFileSync(path.join(ws.root, name), content)
      const r = JSON.parse(ws.tool("read_file", { path: name }).stdout) as { ok: boolean; text: string }
      expect(r.ok && r.text, name).toContain(content.trim().split("\n")[0]?.slice(-6))
    }
  })
})
