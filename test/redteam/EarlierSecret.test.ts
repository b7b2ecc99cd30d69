/**
 * Red team (issue 19), was a hole: a protected file's EARLIER content, left in the object store where no ref, reflog or
 * index entry reaches it, is readable from sandboxed bash. Through the built binary (default sandbox, allow-all; the
 * script is written by write_file, so no guard sees a secret name).
 *
 * The history check (`GitTools.secretHistory`) walks refs, reflogs and the index; the store check
 * (adapters/shell/SecretObjects.ts) hashes each masked file's CURRENT content and looks that id up in the stores.
 * Neither sees a blob of what the file held before: `git add -f .env; git reset .env`, then the key is rotated in
 * `.env` (the old one may well still be valid) or `.env` is removed; or a commit holding `.env` amended away and the
 * reflog expired (`git reflog expire --expire=now --all`, no gc yet). `git cat-file --batch-all-objects --batch`
 * in bash prints the old secret.
 *
 * Now the store check also remembers which loose blobs any tree or index names (StoreSecrets `unattributed`), and the
 * sandbox masks each loose blob nothing names (SecretObjects.toHide; the whole store past 200 of them).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "OLDKEYCANARY"
const cleanups = attackFile()
const dumpAll = "git cat-file --batch-all-objects --batch 2>&1; git fsck --lost-found 2>&1; cat .git/lost-found/other/* 2>&1"

describe.skipIf(unavailable !== undefined)(title("a secret's earlier content in the object store"), () => {
  it("staged by mistake, unstaged, then the key rotated in .env: the old key is not readable from bash", () => {
    const { root, git, script } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("reset", "-q", ".env")
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=rotated\n")
    expect(script(dumpAll)).not.toContain(canary)
  })

  it("staged by mistake, unstaged, then .env removed: its content is not readable from bash", () => {
    const { root, git, script } = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(root, "config"))
    fs.writeFileSync(path.join(root, "config/prod.env"), `TOKEN=${canary}\n`)
    git("add", "-f", "config/prod.env")
    git("reset", "-q", "config/prod.env")
    fs.rmSync(path.join(root, "config/prod.env"))
    expect(script(dumpAll)).not.toContain(canary)
  })

  it("a commit holding .env amended away and the reflog expired: the old .env is not readable from bash", () => {
    const { root, git, script } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "oops")
    git("rm", "-q", "--cached", ".env")
    git("commit", "-q", "--amend", "--allow-empty", "-m", "clean")
    git("reflog", "expire", "--expire=now", "--all")
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=rotated\n")
    expect(script(dumpAll)).not.toContain(canary)
  })
})
