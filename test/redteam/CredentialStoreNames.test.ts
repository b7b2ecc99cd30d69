/**
 * Red team (issue 19, "secret names the list misses"), a hole: credential files of widely used tools, by the names
 * and paths those tools give them, are not protected (domain/jail's names). Workspaces that are a home folder, a
 * dotfiles repository or a project with its tools' local state hold them:
 *
 * - private keys: sops/age `.config/sops/age/keys.txt`, an OpenVPN profile with its `<key>` (`client.ovpn`), a
 *   Firebase Admin service-account key (`myapp-firebase-adminsdk-ab12c-0123456789.json`);
 * - tokens of CLIs: Vercel `.vercel/auth.json`, DigitalOcean `.config/doctl/config.yaml`, Hetzner
 *   `.config/hcloud/cli.toml`, Fly.io `.fly/config.yml`, Firebase `.config/configstore/firebase-tools.json`,
 *   Cloudflare wrangler `.wrangler/config/default.toml`, Netlify `.config/netlify/config.json`, MinIO `.mc/config.json`,
 *   Google API OAuth `token.json`, Azure Functions' `local.settings.json`;
 * - passwords: MySQL's `.mylogin.cnf`, Ansible vault password files (`.vault_pass`, `vault_pass.txt`), the X11 cookie
 *   `.Xauthority`, shell and database histories (`.bash_history`, `.zsh_history`, `.psql_history`, `.mysql_history`:
 *   `mysql -pS3cret`, `\password`, `export TOKEN=` typed at a prompt).
 *
 * Chain: the file is in the workspace; read_file, grep and sandboxed bash print it. Violates: no tool output contains
 * a protected file's content. Through the built binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "CREDSTORECANARY"
const files = [
  ".config/sops/age/keys.txt",
  "client.ovpn",
  "myapp-firebase-adminsdk-ab12c-0123456789.json",
  ".vercel/auth.json",
  ".config/doctl/config.yaml",
  ".config/hcloud/cli.toml",
  ".fly/config.yml",
  ".config/configstore/firebase-tools.json",
  ".wrangler/config/default.toml",
  ".config/netlify/config.json",
  ".mc/config.json",
  "token.json",
  "local.settings.json",
  ".mylogin.cnf",
  ".vault_pass",
  "vault_pass.txt",
  ".Xauthority",
  ".bash_history",
  ".zsh_history",
  ".psql_history",
  ".mysql_history"
]
const line = (i: number) => `${canary}${i}X`

describe(title("credential files of common tools by their own names"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const { root, toolAsync, scriptAsync } = attackWorkspace(cleanups)
    files.forEach((f, i) => {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
      fs.writeFileSync(path.join(root, f), `${line(i)}\n`)
    })
    const out: Array<string> = []
    // read_file for a few (each one-shot call scans the workspace); grep and bash judge every path by the same rule.
    for (const f of [".config/sops/age/keys.txt", ".mylogin.cnf", ".vercel/auth.json", ".bash_history"]) {
      const r = await toolAsync("read_file", { path: f })
      out.push(r.stdout + r.stderr)
    }
    const g = await toolAsync("grep", { pattern: canary })
    out.push(g.stdout + g.stderr)
    if (unavailable === undefined) out.push(await scriptAsync(`find . -path ./.git -prune -o -type f -exec cat {} + 2>/dev/null`))
    const all = out.join("\n")
    expect(files.filter((_, i) => all.includes(line(i)))).toEqual([])
  }, 60_000)
})
