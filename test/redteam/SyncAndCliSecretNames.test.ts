/**
 * Red team 9 (issue 19, family 8: secret names the list misses). Files that hold passwords, keys or tokens by design,
 * which read_file, grep and sandboxed bash all showed: upload and sync tools' saved logins (Sublime SFTP, VS Code's
 * SFTP extension, Atom's remote-ftp and remote-sync, FileZilla, WinSCP, DBeaver, Robo 3T, pgAdmin), signing and
 * registry secrets (Flutter/Android keystore passwords, a Kubernetes pull secret, an undotted htpasswd, an Oracle
 * wallet, a GitHub Actions runner's key), network secrets (CIFS, Wi-Fi, NetworkManager, WireGuard, Tailscale),
 * cloud and CI CLIs' tokens (Cloud Foundry, IBM Cloud, Alibaba, Tencent, OpenStack, Talos, Vultr, Backblaze,
 * Doppler, Infisical, Travis CI, GitLab Runner, Buildkite, Render, PlanetScale, Turso, Exoscale, Cachix, JFrog),
 * package managers' (uv, Poetry, Hex, Dart pub), databases' (Cassandra, dbt, Snowflake, InfluxDB, ClickHouse),
 * password stores (LastPass CLI, KWallet) and mail and chat clients' passwords. A home-folder or dotfiles workspace
 * holds them at these paths; a project holds several (`android/key.properties`, `sftp-config.json`). Honest
 * look-alikes (a project's `profiles.yml`, `.cargo/config.toml`, `.vscode/settings.json`, templates) still read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace, shownSecrets } from "./support/Attack.js"

const cleanups = attackFile()

const files: Record<string, string> = {
  "sftp-config.json": '{"password": "canary-sublime-sftp"}\n',
  ".vscode/sftp.json": '{"password": "canary-vscode-sftp"}\n',
  ".ftpconfig": '{"pass": "canary-ftpconfig"}\n',
  ".remote-sync.json": '{"password": "canary-remote-sync"}\n',
  ".config/filezilla/sitemanager.xml": "<Pass>canary-filezilla-sites</Pass>\n",
  ".config/filezilla/recentservers.xml": "<Pass>canary-filezilla-recent</Pass>\n",
  "WinSCP.ini": "Password=canary-winscp\n",
  ".local/share/DBeaverData/workspace6/General/.dbeaver/credentials-config.json": "canary-dbeaver\n",
  ".3T/robo-3t/1.4.4/robo3t.json": '{"userPassword": "canary-robo-three"}\n',
  ".pgadmin/pgadmin4.db": "canary-pgadmin\n",
  "android/key.properties": "storePassword=canary-flutter-key\n",
  "android/keystore.properties": "keyPassword=canary-android-keystore\n",
  "k8s/.dockerconfigjson": '{"auths": {"r": {"auth": "canary-pull-secret"}}}\n',
  "registry/auth/htpasswd": "admin:canary-htpasswd\n",
  "wallet/cwallet.sso": "canary-oracle-wallet\n",
  "actions-runner/.credentials_rsaparams": '{"d": "canary-runner-key"}\n',
  ".smbcredentials": "password=canary-smb\n",
  "etc/wpa_supplicant/wpa_supplicant.conf": 'psk="canary-wifi"\n',
  "etc/NetworkManager/system-connections/home.nmconnection": "psk=canary-nm\n",
  "etc/wireguard/wg0.conf": "PrivateKey = canary-wireguard\n",
  "var/lib/tailscale/tailscaled.state": '{"_machinekey": "canary-tailscale"}\n',
  ".cassandra/cqlshrc": "password = canary-cqlsh\n",
  ".edgerc": "client_secret = canary-akamai\n",
  ".config/dart/pub-tokens.json": '{"token": "canary-pub-tokens"}\n',
  ".local/share/uv/credentials/credentials.toml": 'password = "canary-uv"\n',
  "buildkite-agent.cfg": 'token="canary-buildkite"\n',
  ".config/openstack/clouds.yaml": "password: canary-openstack\n",
  ".config/openstack/secure.yaml": "password: canary-openstack-secure\n",
  ".talos/config": "key: canary-talos\n",
  ".vultr-cli.yaml": "api-key: canary-vultr\n",
  ".b2_account_info": "canary-backblaze\n",
  ".infisical/infisical-config.json": '{"token": "canary-infisical"}\n',
  ".twurlrc": "token: canary-twurl\n",
  ".transifexrc": "token = canary-transifex\n",
  ".mbsyncrc": "Pass canary-mbsync\n",
  ".offlineimaprc": "remotepass = canary-offlineimap\n",
  ".lpass/session_privatekey": "canary-lastpass\n",
  ".local/share/kwalletd/kdewallet.kwl": "canary-kwallet\n",
  ".tccli/default.credential": '{"secretKey": "canary-tencent"}\n',
  ".jfrog/jfrog-cli.conf.v6": '{"accessToken": "canary-jfrog"}\n',
  ".dbt/profiles.yml": "password: canary-dbt\n",
  ".snowflake/connections.toml": 'password = "canary-snowflake"\n',
  ".config/pypoetry/auth.toml": 'password = "canary-poetry"\n',
  ".hex/hex.config": "{api_key, <<\"canary-hex\">>}.\n",
  ".cf/config.json": '{"AccessToken": "canary-cloud-foundry"}\n',
  ".bluemix/config.json": '{"IAMToken": "canary-ibm-cloud"}\n',
  ".aliyun/config.json": '{"access_key_secret": "canary-aliyun"}\n',
  ".doppler/.doppler.yaml": "token: canary-doppler\n",
  ".travis/config.yml": "access_token: canary-travis\n",
  ".gitlab-runner/config.toml": 'token = "canary-gitlab-runner"\n',
  ".config/cachix/cachix.dhall": 'authToken = "canary-cachix"\n',
  ".config/turso/settings.json": '{"token": "canary-turso"}\n',
  ".render/cli.yaml": "key: canary-render\n",
  ".config/planetscale/access-token": "canary-planetscale\n",
  ".weechat/sec.conf": "passphrase = canary-weechat\n",
  ".irssi/config": "password = canary-irssi\n",
  ".influxdbv2/configs": 'token = "canary-influx"\n',
  ".clickhouse-client/config.xml": "<password>canary-clickhouse</password>\n",
  ".config/exoscale/exoscale.toml": 'secret = "canary-exoscale"\n'
}

describe.skipIf(unavailable !== undefined)(title("sync, signing, network, CLI and client credential files by names the jail did not know"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    expect(await shownSecrets(ws, files)).toEqual([])
  }, 180_000)

  it("honest look-alikes are still read", async () => {
    const ws = attackWorkspace(cleanups)
    const honest: Record<string, string> = {
      "profiles.yml": "default:\n  target: dev\n",
      ".cargo/config.toml": "[build]\njobs = 2\n",
      ".vscode/settings.json": '{"editor.tabSize": 2}\n',
      "config.toml": 'title = "site"\n',
      "src/config.json": '{"port": 3000}\n',
      "android/key.properties.example": "storePassword=\n",
      "docs/htpasswd.md": "# Making an htpasswd file\n",
      "wireguard/wg.conf.md": "# The wg0.conf layout\n",
      "src/credential.ts": "export const credential = 1\n",
      ".travis.yml": "language: node_js\n",
      "exoscale/README.md": "# Exoscale notes\n",
      "settings.json": '{"theme": "dark"}\n'
    }
    for (const [name, content] of Object.entries(honest)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, name)), { recursive: true })
      fs.writeFileSync(path.join(ws.root, name), content)
      const r = JSON.parse((await ws.toolAsync("read_file", { path: name })).stdout) as { ok: boolean; text: string }
      expect(r.ok && r.text, name).toContain(content.trim().split("\n")[0]?.slice(-6))
    }
  }, 120_000)
})
