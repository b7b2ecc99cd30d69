/**
 * Issue 40, item 4, through the built CLI and `mcp serve`: source code was hidden as secrets by its name. Python's
 * `secrets.py`, `secrets.go`, `secrets.test.ts` and every file under a folder named `credentials/` (gRPC's
 * `credentials/tls.go`, the AWS SDK's `credentials/provider.go`) were refused by read_file, left out of grep without
 * a word, dropped from repo_map, and masked in sandboxed bash. Code is code now; what a `credentials/` folder holds
 * that is not code, and every credential file by its name, stays protected everywhere.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, shownSecrets } from "../redteam/support/Attack.js"
import { bin, connect, isErrorResult, textOf } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

/** Honest source files, each with a word of its own to find. */
const honest: Record<string, string> = {
  "lib/python3.12/secrets.py": "def token_hex(nbytes=None):\n    return 'honest-stdlib-secrets'\n",
  "pkg/secrets.go": "package pkg\n\nfunc Secrets() string { return \"honest-secrets-go\" }\n",
  "src/secrets.test.ts": "export const secretsTest = () => 'honest-secrets-test'\n",
  "credentials/tls.go": "package credentials\n\nfunc NewTLS() string { return \"honest-grpc-tls\" }\n",
  "aws/credentials/provider.go": "package credentials\n\nfunc NewProvider() string { return \"honest-aws-provider\" }\n",
  "credentials/alts/handshaker.go": "package alts\n\nfunc Handshake() string { return \"honest-alts-handshaker\" }\n"
}

/** Credential files that stay protected, a folder named `credentials/` holding some. */
const secrets: Record<string, string> = {
  "credentials/prod.json": '{"key":"canary-creds-json"}\n',
  "credentials/token": "canary-creds-token\n",
  "credentials/alts/key.yaml": "key: canary-creds-yaml\n",
  "credentials/setup.sh": "export TOKEN=canary-creds-sh\n",
  "deploy/credentials": "aws_secret_access_key = canary-aws-file\n",
  "secrets.yaml": "token: canary-secrets-yaml\n",
  "secrets.json": '{"t":"canary-secrets-json"}\n',
  "secrets.toml": 't = "canary-secrets-toml"\n',
  "site/wp-config.php": "<?php define('DB_PASSWORD', 'canary-wp-config');\n",
  ".env": "TOKEN=canary-env\n",
  "tls.pem": "canary-pem\n",
  ".ssh/helper.py": "KEY = 'canary-ssh-py'\n"
}
const plant = (root: string, files: Record<string, string>) => {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
}
const word = (content: string) => /honest-[a-z0-9-]+/.exec(content)?.[0] ?? "?"

describe.skipIf(unavailable !== undefined)(title("source code is not a secret by its name (issue 40)"), () => {
  it("the CLI: read_file, grep, repo_map, list_dir, glob and sandboxed bash show the source; the credentials stay hidden", async () => {
    const ws = attackWorkspace(cleanups)
    plant(ws.root, honest)
    for (const [name, content] of Object.entries(honest)) {
      const r = JSON.parse((await ws.toolAsync("read_file", { path: name })).stdout) as { ok: boolean; text: string }
      expect(r.ok && r.text, `read_file ${name}`).toContain(word(content))
    }
    const grep = (await ws.toolAsync("grep", { pattern: "honest-" })).stdout
    for (const [name, content] of Object.entries(honest)) expect(grep, `grep ${name}`).toContain(word(content))
    const map = (await ws.toolAsync("repo_map", {})).stdout
    for (const name of ["pkg/secrets.go", "credentials/tls.go", "aws/credentials/provider.go", "lib/python3.12/secrets.py"]) expect(map, `repo_map ${name}`).toContain(name)
    const list = JSON.parse((await ws.toolAsync("list_dir", { path: "credentials" })).stdout) as { ok: boolean; text: string }
    expect(list.ok && list.text).toContain("tls.go")
    const glob = (await ws.toolAsync("glob", { pattern: "**/*.go", path: "credentials" })).stdout
    expect(glob).toContain("tls.go")
    expect(glob).toContain("alts/handshaker.go")
    const bash = await ws.scriptAsync("cat credentials/tls.go aws/credentials/provider.go pkg/secrets.go lib/python3.12/secrets.py; echo read-done")
    for (const name of ["credentials/tls.go", "aws/credentials/provider.go", "pkg/secrets.go", "lib/python3.12/secrets.py"]) expect(bash, `bash ${name}`).toContain(word(honest[name] ?? ""))
    // The bash guard judges a pattern's ordinary name with its extension: `credentials/*.go` is code, `credentials/*` may not be.
    const byGuard = await ws.toolAsync("bash", { command: "cat credentials/*.go" })
    expect(byGuard.stdout, byGuard.stderr).toContain("honest-grpc-tls")
    const denied = await ws.toolAsync("bash", { command: "cat credentials/*" })
    expect(denied.status).not.toBe(0)
    expect(denied.stdout + denied.stderr).not.toContain("canary-")
    // The credentials beside them: none shown by read_file, grep or sandboxed bash.
    expect(await shownSecrets(ws, secrets)).toEqual([])
    // grep says how many protected paths it left out unopened (it was silent), with either engine, whatever matched.
    for (const env of [process.env, { ...process.env, MINICODE_GREP: "node" }]) {
      const r = await runCli(bin, ["tool", "grep", JSON.stringify({ pattern: "no-such-word-anywhere", path: "credentials" }), "--cwd", ws.root], { env, timeoutMs: 120_000 })
      // credentials/prod.json, credentials/token, credentials/alts/key.yaml, credentials/setup.sh
      expect(r.stdout, r.stderr).toContain("[4 protected paths left out, never opened")
    }
  }, 240_000)

  it("mcp serve: read_file, grep, repo_map and list_dir show the source; the credentials stay hidden", async () => {
    const ws = attackWorkspace(cleanups)
    plant(ws.root, honest)
    plant(ws.root, secrets)
    const s = await connect(ws.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const call = async (name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args })
    for (const [name, content] of Object.entries(honest)) {
      const r = await call("read_file", { path: name })
      expect(isErrorResult(r), `read_file ${name}: ${textOf(r)}`).toBe(false)
      expect(textOf(r)).toContain(word(content))
    }
    const grep = textOf(await call("grep", { pattern: "honest-|canary-" }))
    for (const [name, content] of Object.entries(honest)) expect(grep, `grep ${name}`).toContain(word(content))
    expect(grep).not.toContain("canary-")
    const map = textOf(await call("repo_map", {}))
    for (const name of ["pkg/secrets.go", "credentials/tls.go", "aws/credentials/provider.go"]) expect(map, `repo_map ${name}`).toContain(name)
    expect(textOf(await call("list_dir", { path: "credentials" }))).toContain("tls.go")
    for (const name of Object.keys(secrets)) {
      const r = await call("read_file", { path: name })
      expect(isErrorResult(r), `read_file ${name}`).toBe(true)
      expect(textOf(r)).not.toContain("canary-")
    }
  }, 240_000)
})
