/**
 * Red team (issue 19), attacks on the jail's copy names (domain/jail/CopyNames.ts) through the built binary:
 * - bash copies a secret under a decorated name and the next call reads the copy (read_file, grep, bash);
 * - a sync client drops a conflicted copy of a secret into the workspace between two bash calls (the sandbox's
 *   cached scan must see it: the mask is `SandboxProfile.classify` -> `Jail.protectedName`, the file tools' rule);
 * - move_file and write_file create a decorated copy of a secret name (refused as the secret name itself is);
 * - decorated names in another case, with invisible characters, compatibility forms (fullwidth), NFD and no-break
 *   spaces.
 * Each canary must appear in no output.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const slow = 240_000

describe.skipIf(unavailable !== undefined)(title("attacks on copies of secrets under decorated names"), () => {
  it("bash copies .env under decorated names; the next calls show no copy", async () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), "TOKEN=canary-seq-x\n")
    const copies = [".env (1)", ".env(1)", ".env 2", "id_rsa_BACKUP_1", ".env (Bob's conflicted copy 2024-01-01)", "Copy of .env", ".env.sync-conflict-20240101-123456-ABCDEFG"]
    const cp = copies.map((c) => `cp .env "${c}" 2>/dev/null; cat .env > "${c}.txt" 2>/dev/null`).join("; ")
    const first = await ws.scriptAsync(`${cp}; cat .env; echo first-done`)
    expect(first).toContain("first-done")
    expect(first).not.toContain("canary-seq-x")
    for (const c of copies) expect((await ws.toolAsync("read_file", { path: c })).stdout, c).not.toContain("canary-seq-x")
    // The pattern is echoed when nothing matches: it must not spell the canary.
    expect((await ws.toolAsync("grep", { pattern: "seq-[x]" })).stdout).not.toContain("canary-seq-x")
    const second = await ws.scriptAsync("cat -- * .env* 2>/dev/null; echo second-done")
    expect(second).toContain("second-done")
    expect(second).not.toContain("canary-seq-x")
  }, slow)

  it("a conflicted copy made between two bash calls is masked in the second (the scan's cache is not stale)", async () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, "notes.txt"), "plain\n")
    fs.mkdirSync(path.join(ws.root, "conf"))
    const warm = await ws.scriptAsync("cat notes.txt; ls conf; echo warm-done")
    expect(warm).toContain("warm-done")
    // As a sync client would, while the session goes on: at the root and in a folder the scan already read.
    const made = [".env (conflicted copy 2024-01-01 123456)", "conf/credentials (1).json", "conf/id_rsa.sync-conflict-20240101-123456-ABCDEFG", "conf/.aws (1)/credentials"]
    fs.mkdirSync(path.join(ws.root, "conf/.aws (1)"))
    made.forEach((m, i) => fs.writeFileSync(path.join(ws.root, m), `canary-made-${i}-x\n`))
    const out = await ws.scriptAsync("cat -- * .env* conf/* 'conf/.aws (1)/credentials' 2>/dev/null; echo made-done")
    expect(out).toContain("made-done")
    made.forEach((m, i) => expect(out, m).not.toContain(`canary-made-${i}-x`))
    for (const m of made) expect((await ws.toolAsync("read_file", { path: m })).stdout, m).not.toContain("canary-made")
    expect((await ws.toolAsync("grep", { pattern: "made-[0-9]" })).stdout).not.toMatch(/canary-made-\d-x/)
  }, slow)

  it("move_file and write_file never make a decorated copy of a secret name", async () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, "token.txt"), "TOKEN=canary-move-x\n")
    for (const to of [".env (1)", "id_rsa(1)", ".env 2", "credentials (Bob's conflicted copy 2024-01-01).json", "id_rsa_LOCAL_123", "#.npmrc#"]) {
      const moved = await ws.toolAsync("move_file", { from: "token.txt", to })
      expect(moved.status, `move_file to ${to}`).not.toBe(0)
      expect(moved.stdout + moved.stderr, to).toContain("protected")
      const written = await ws.toolAsync("write_file", { path: to, content: "x\n" })
      expect(written.status, `write_file ${to}`).not.toBe(0)
      expect(fs.existsSync(path.join(ws.root, to)), to).toBe(false)
    }
    expect(fs.readFileSync(path.join(ws.root, "token.txt"), "utf8")).toContain("canary-move-x")
  }, slow)

  it("decorated names in other cases and unicode spellings are shown by no tool", async () => {
    const ws = attackWorkspace(cleanups)
    const names = [".ENV (1)", "ID_RSA_BACKUP_9", "Id_Rsa(2)", "\uff49\uff44_\uff52\uff53\uff41", "id\u200b_rsa", ".env\u00a0(1)", "i\u0307d_rsa 2", ".e\u0301nv (1)".normalize("NFD")]
    names.forEach((n, i) => fs.writeFileSync(path.join(ws.root, n), `canary-uni-${i}-x\n`))
    const shown: Array<string> = []
    for (const [i, n] of names.entries()) if ((await ws.toolAsync("read_file", { path: n })).stdout.includes(`canary-uni-${i}-x`)) shown.push(`read_file ${JSON.stringify(n)}`)
    if (/canary-uni-\d-x/.test((await ws.toolAsync("grep", { pattern: "uni-[0-9]" })).stdout)) shown.push("grep")
    const out = await ws.scriptAsync("for f in ./* ./.[!.]*; do cat \"$f\" 2>/dev/null; done; echo uni-done")
    expect(out).toContain("uni-done")
    names.forEach((n, i) => {
      if (out.includes(`canary-uni-${i}-x`)) shown.push(`bash ${JSON.stringify(n)}`)
    })
    expect(shown).toEqual([])
  }, slow)
})
