/**
 * Red team (issue 19), a staged secret re-indexed under an innocent name: the git tools hide a blob that sits at a
 * secret path in the history or the index (GitTools.walkSecretBlobs). A `.env` the user staged but never committed
 * sits at a secret path in the index only, and sandboxed bash may write the index (the store is hidden, but
 * `git update-index --info-only` needs no object): it drops `.env` from the index and adds the same blob id as
 * `notes.txt`. No secret path holds the blob any more, so `git_show :notes.txt` prints the secret, and
 * `git_diff --staged` shows it as notes.txt's patch.
 *
 * Likewise a committed `.env` (GitReindex covered it with the history in place): bash may also write refs and
 * reflogs, so it re-indexes the blob as `notes.txt`, copies `HEAD`, `refs/` and `logs/` aside and removes them
 * (HEAD names an unborn branch); the walk then finds no commit, `git_show :notes.txt` prints the secret, and a
 * second bash call puts the history back.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "canary-staged-reindex"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a secret's blob re-indexed from bash under an innocent name"), () => {
  it("git_show and git_diff never show its content under the innocent name", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), `SECRET=${canary}\n`)
    ws.git("add", ".env")
    const out = ws.script(`X=$(git ls-files -s .env | cut -d' ' -f2)
git update-index --force-remove .env && git update-index --add --info-only --cacheinfo 100644,$X,notes.txt && echo reindexed`)
    expect(out).toContain("reindexed")
    expect(ws.git("ls-files")).toContain("notes.txt")
    const show = ws.tool("git_show", { rev: ":notes.txt" })
    const diff = ws.tool("git_diff", { staged: true })
    expect(show.stdout + show.stderr).not.toContain(canary)
    expect(diff.stdout + diff.stderr).not.toContain(canary)
  })
  it("a committed .env: re-indexed, the refs and reflogs moved aside meanwhile, git_show never shows it", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), `SECRET=${canary}-committed\n`)
    ws.git("add", ".env")
    ws.git("commit", "-q", "-m", "config")
    const out = ws.script(`X=$(git ls-files -s .env | cut -d' ' -f2)
git update-index --force-remove .env && git update-index --add --info-only --cacheinfo 100644,$X,notes.txt
mkdir saved && cp -r .git/refs .git/logs .git/HEAD saved/ && rm -rf .git/refs/heads/* .git/logs .git/packed-refs
echo 'ref: refs/heads/gone' > .git/HEAD && echo hidden`)
    expect(out).toContain("hidden")
    const show = ws.tool("git_show", { rev: ":notes.txt" })
    expect(ws.script("cp -r saved/refs saved/logs .git/ && cp saved/HEAD .git/HEAD && echo restored")).toContain("restored")
    expect(ws.git("log", "--oneline")).toContain("config")
    expect(show.stdout + show.stderr).not.toContain(canary)
  })
})
