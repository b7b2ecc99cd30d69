/**
 * Red team (issue 19, "secret names the list misses"), a hole: copies of secret files under the names file managers,
 * browsers and GNU tools give them, and compressed copies, are not protected. Jail's `undecorated` strips editor
 * decorations (`.bak`, `~`, `.orig`, `.<digits>`) but not `cp --backup=numbered` / `mv -b` (`id_rsa.~1~`), macOS
 * Finder's `id_rsa copy` / `id_rsa copy 2`, Windows Explorer's `id_rsa - Copy` / `id_rsa - Copy (2)`, GNOME's
 * `.env (copy)`, a browser's second download `id_rsa (1)`, or `gzip`/`tar` of one (`server.key.gz`, `id_rsa.tar.gz`).
 * read_file showed them and sandboxed bash read them (`cat`, `gzip -dc`). Through the built binary.
 *
 * Now `backupSuffix` (domain/jail/Jail.ts) strips those decorations too; the sandbox scan uses the same rule.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, readEach } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "COPYCANARY"
const plain = ["id_rsa.~1~", ".env.~2~", "id_rsa copy", "id_rsa copy 2", "id_rsa - Copy", "id_rsa - Copy (2)", ".env (copy)", "id_ed25519 (1)", ".npmrc (another copy)"]
const compressed = ["server.key.gz", "id_rsa.bz2", "id_rsa.xz", "id_rsa.zst", ".pgpass.gz", "id_rsa.bak.gz"]

describe.skipIf(unavailable !== undefined)(title("copies of secret files by other names"), () => {
  it("read_file and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    const { root, script } = ws
    for (const n of plain) fs.writeFileSync(path.join(root, n), `${canary} ${n}\n`)
    for (const n of compressed) fs.writeFileSync(path.join(root, n), gzipSync(`${canary} ${n}\n`))
    const read = await readEach(ws, plain)
    expect(plain.filter((n) => read[n]?.includes(canary) !== false)).toEqual([])
    const out = script(`for f in ./*; do cat "$f"; gzip -dc "$f" 2>/dev/null; done`)
    expect([...plain, ...compressed].filter((n) => out.includes(`${canary} ${n}`))).toEqual([])
    // The names are read through one mcp serve (readEach); the long timeout stays for a loaded machine.
  }, 180_000)

  it("honest names stay readable: a copy of an ordinary file, an archive of one", () => {
    const { root, tool } = attackWorkspace(cleanups)
    for (const n of ["notes copy.txt", "report (1).pdf", "main.go.~1~", "data.json.gz"]) fs.writeFileSync(path.join(root, n), `plain ${n}\n`)
    for (const n of ["notes copy.txt", "report (1).pdf", "main.go.~1~"]) expect(tool("read_file", { path: n }).stdout).toContain(`plain ${n}`)
    expect(tool("read_file", { path: "data.json.gz" }).stderr).not.toContain("protected")
  })
})
