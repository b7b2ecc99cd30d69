import { describe, expect, it } from "vitest"
import * as SecretStatus from "../../../src/domain/git/SecretStatus.js"

const block = (mtime: string, ino: number, size: number) =>
  `  ctime: 1796545132:791034530\n  mtime: ${mtime}\n  dev: 65024\tino: ${ino}\n  uid: 0\tgid: 0\n  size: ${size}\tflags: 0\n`
const id = (c: string) => c.repeat(40)

describe("SecretStatus", () => {
  it("parses `git ls-files -z --stage --debug` records, paths as they are (a newline, a quote)", () => {
    const text = [`100644 ${id("a")} 0\t.env\0`, block("1796545132:791034530", 21, 9), `100644 ${id("b")} 0\tweird\n"name".env\0`, block("5:0", 3, 0)].join("")
    const [a, b] = SecretStatus.parse(text)
    expect(a).toEqual({ mode: "100644", id: id("a"), stage: "0", path: ".env", stat: { mtimeMs: 1796545132791.03453, size: 9, ino: 21 } })
    expect(b?.path).toBe('weird\n"name".env')
    expect(b?.stat).toEqual({ mtimeMs: 5000, size: 0, ino: 3 })
    expect(SecretStatus.parse(`100644 ${id("c")} 0\tx\0`)[0]?.stat).toBeUndefined()
  })

  it("judges by stat data alone: equal and older than the index is clean; anything else is modified", () => {
    const entry = SecretStatus.parse(`100644 ${id("a")} 0\t.env\0${block("1000:500000000", 7, 9)}`)[0]!
    const file = { kind: "file", size: 9, ino: 7, mtimeMs: 1_000_500 }
    expect(SecretStatus.worktree(entry, file, 2_000_000)).toBe(" ")
    expect(SecretStatus.worktree(entry, { ...file, size: 10 }, 2_000_000)).toBe("M")
    expect(SecretStatus.worktree(entry, { ...file, ino: 8 }, 2_000_000)).toBe("M")
    expect(SecretStatus.worktree(entry, { ...file, mtimeMs: 1_000_501 }, 2_000_000)).toBe("M")
    // Racily clean: written in the index file's own tick, git itself would have to read it.
    expect(SecretStatus.worktree(entry, file, 1_000_500)).toBe("M")
    expect(SecretStatus.worktree(entry, file, undefined)).toBe("M")
    expect(SecretStatus.worktree(entry, undefined, 2_000_000)).toBe("D")
    expect(SecretStatus.worktree(entry, { ...file, kind: "symlink" }, 2_000_000)).toBe("T")
    expect(SecretStatus.worktree({ ...entry, stage: "2" }, file, 2_000_000)).toBe("U")
    // An entry bash rewrote (`update-index --cacheinfo`): zero stat data, modified whatever the blob.
    const planted = SecretStatus.parse(`100644 ${id("f")} 0\t.env\0${block("0:0", 0, 0)}`)[0]!
    expect(SecretStatus.worktree(planted, file, 2_000_000)).toBe("M")
  })
})
