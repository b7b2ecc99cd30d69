/**
 * Red team (issue 19, copy names), a hole: copies of secret files under names that other real tools give them are
 * not protected (domain/jail/CopyNames `undecorated` strips none of these decorations):
 *
 * - JetBrains IDEs' safe write: `id_rsa___jb_tmp___`, `id_rsa___jb_old___` (the whole file, kept on a crash);
 * - Chrome's File System Access API swap file: `id_rsa.crswap` (a full copy while a web editor saves);
 * - package managers keeping a changed config: rpm `.rpmsave` / `.rpmnew`, dpkg `.dpkg-old` / `.dpkg-dist`,
 *   pacman `.pacnew` / `.pacsave`, ucf `.ucf-old`;
 * - Subversion's conflict files: `id_rsa.mine`, `id_rsa.r42`, `id_rsa.merge-left.r41`;
 * - OneDrive's per-device conflict copy: `id_rsa-DESKTOP-1A2B3C`;
 * - Unison's transfer temp: `.unison.id_rsa.8f3a2c.unison.tmp`; RCS's history file `id_rsa,v`;
 * - common hand-made backups: `id_rsa.bkp`, `id_rsa.new`, `id_rsa.sav`, `id_rsa_copy`, `.npmrc.bkp`, `.pgpass.new`;
 * - archives the list lacks: `id_rsa.rar`, `id_rsa.lz` (a stored, uncompressed member holds the bytes as they are).
 *
 * Chain: such a copy exists in the workspace (made by the tool or the user); read_file, grep and sandboxed bash's
 * `cat` print it. Violates: no tool output contains a protected file's content (a copy of a secret is as secret as
 * the original, CopyNames' own rule). Through the built binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "TOOLCOPYCANARY"
const names = [
  "id_rsa___jb_tmp___",
  "id_rsa___jb_old___",
  "id_rsa.crswap",
  ".pgpass.rpmsave",
  ".netrc.rpmnew",
  "id_rsa.dpkg-old",
  "id_rsa.dpkg-dist",
  "id_rsa.pacnew",
  "id_rsa.pacsave",
  "id_rsa.ucf-old",
  "id_rsa.mine",
  "id_rsa.r42",
  "id_rsa.merge-left.r41",
  "id_rsa-DESKTOP-1A2B3C",
  ".unison.id_rsa.8f3a2c.unison.tmp",
  "id_rsa,v",
  "id_rsa.bkp",
  "id_rsa.new",
  "id_rsa.sav",
  "id_rsa_copy",
  ".npmrc.bkp",
  ".pgpass.new",
  "id_rsa.rar",
  "id_rsa.lz"
]
// Each file's line names it: `TOOLCOPYCANARY<i>`, so an output shows which copy leaked.
const line = (i: number) => `${canary}${i}X`

describe(title("copies of secret files by the names other tools give them"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const { root, toolAsync, scriptAsync } = attackWorkspace(cleanups)
    names.forEach((n, i) => fs.writeFileSync(path.join(root, n), `${line(i)}\n`))
    const out: Array<string> = []
    // read_file for a few (each one-shot call scans the workspace); grep and bash judge every name by the same rule.
    for (const n of ["id_rsa___jb_tmp___", "id_rsa.crswap", ".pgpass.rpmsave", "id_rsa.mine"]) {
      const r = await toolAsync("read_file", { path: n })
      out.push(r.stdout + r.stderr)
    }
    const g = await toolAsync("grep", { pattern: canary })
    out.push(g.stdout + g.stderr)
    if (unavailable === undefined) out.push(await scriptAsync(`for f in ./* ./.[!.]*; do cat "$f" 2>/dev/null; done`))
    const all = out.join("\n")
    expect(names.filter((_, i) => all.includes(line(i)))).toEqual([])
  }, 60_000)

  it("honest names stay readable: a copy of an ordinary file by the same decorations", async () => {
    const { root, toolAsync } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, "notes.txt.bkp"), "plain notes\n")
    const r = await toolAsync("read_file", { path: "notes.txt.bkp" })
    expect(r.stdout).toContain("plain notes")
  }, 30_000)
})
