/** Temporary workspaces for tests: real directories, removed by the OS's tmp cleaning (tests are short). */
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
