/**
 * PathJudge.lexical keeps the facts of one chain of folders (the root down to the last folder asked about), not a
 * map of every folder: its answers must not depend on the order paths come in. Each path in a shuffled sequence
 * (folders revisited, deeper, shallower, siblings, secret folders, aliased folders) is judged as a judge that saw
 * nothing before judges it, and as `Jail.protectedName` plus `Aliases.reason` on the whole path say.
 */
import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as Aliases from "../../src/domain/jail/Aliases.js"
import * as Jail from "../../src/domain/jail/Jail.js"
import type { FileSystemShape } from "../../src/ports/FileSystem.js"
import { pathJudge } from "../../src/tools/PathJudge.js"

const root = "/ws"
// lexical never touches the file system.
const fs = {} as FileSystemShape
const aliases: Aliases.Protected = { paths: new Set(["/ws/a/b", "/ws/c/x.ts", "/ws/.hidden/d"]), inodes: new Set() }

const segment = FastCheck.constantFrom("a", "b", "c", "src", ".ssh", ".docker", "config.json", ".config", "minicode", ".env", ".git", ".minicode", "x.ts", "id_rsa", ".hidden", "d", "", ".", "..")
const relPath = FastCheck.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"))

/** What lexical must answer for `rel`, from the whole path. */
const expected = (rel: string): boolean => {
  if (rel === "" || rel.startsWith("/")) return false
  const segs = rel.split("/")
  if (segs.some((s) => s === "" || s === "." || s === "..")) return false
  if (segs.slice(0, -1).some((s) => s === ".git" || s === ".minicode")) return false
  const abs = `${root}/${rel}`
  return Jail.protectedName(abs, root) === undefined && Aliases.reason(aliases, root, abs) === undefined
}

describe("PathJudge.lexical", () => {
  it("answers for each path as a fresh judge and the whole-path rules do, whatever came before", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.array(relPath, { minLength: 1, maxLength: 40 }), (paths) => {
        const judge = pathJudge(fs, root, aliases)
        for (const rel of paths) {
          const fresh = pathJudge(fs, root, aliases).lexical(rel)
          expect(judge.lexical(rel), rel).toBe(fresh)
          expect(fresh, rel).toBe(expected(rel))
        }
      }),
      { numRuns: 500 }
    )
  })
})
