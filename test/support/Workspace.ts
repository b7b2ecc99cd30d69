/** Temporary workspaces for tests: real directories, removed by the OS's tmp cleaning (tests are short). */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

export const tempDir = (prefix = "minicode-journal-"): string =>
  NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), prefix)))

export const write = (root: string, path: string, content: string, mode = 0o644): void => {
  const full = NodePath.join(root, path)
  NodeFs.mkdirSync(NodePath.dirname(full), { recursive: true })
  NodeFs.writeFileSync(full, content)
  NodeFs.chmodSync(full, mode)
}

/** Every file under root (except .minicode) as path → "mode:content-base64", for byte-for-byte comparison. */
export const tree = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const entry of NodeFs.readdirSync(dir, { withFileTypes: true })) {
      const full = NodePath.join(dir, entry.name)
      const rel = NodePath.relative(root, full)
      if (rel === ".minicode") continue
      if (entry.isDirectory()) walk(full)
      else out[rel] = `${(NodeFs.lstatSync(full).mode & 0o7777).toString(8)}:${NodeFs.readFileSync(full).toString("base64")}`
    }
  }
  walk(root)
  return out
}

export const encode = (text: string): Uint8Array => new TextEncoder().encode(text)

/** A fresh git repository (branch main, a committer set) with one commit of `a.txt` ("one\n"), and git run in it. */
export const committedRepo = (prefix: string) => {
  const root = tempDir(prefix)
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, encoding: "utf8" })
  git("init", "-q", "-b", "main")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "Dev")
  NodeFs.writeFileSync(NodePath.join(root, "a.txt"), "one\n")
  git("add", "a.txt")
  git("commit", "-q", "-m", "first")
  return { root, git }
}
