import { describe, expect, it } from "vitest"
import * as GitOutput from "../../../src/domain/git/GitOutput.js"

const secret = (p: string) => p.split("/").pop() === ".env"
const id = (c: string) => c.repeat(40)

describe("secret blob ids", () => {
  it("come from raw log lines and index records at secret paths only", () => {
    const log = [
      `:000000 100644 ${id("0")} ${id("a")} A\t.env`,
      `:100644 100644 ${id("a")} ${id("b")} M\tsub/.env`,
      `:000000 100644 ${id("0")} ${id("c")} A\tplain.txt`,
      `::100644 100644 100644 ${id("d")} ${id("e")} ${id("f")} MM\t"q/.env"`
    ].join("\n")
    const stage = [`100644 ${id("1")} 0\tx/.env`, `100644 ${id("2")} 0\tok.txt`].join("\0")
    expect([...GitOutput.secretBlobIds(log, stage, secret)].sort()).toEqual([id("1"), id("a"), id("b"), id("d"), id("e"), id("f")].sort())
  })

  it("hide a section under an innocent name whose blob is a secret's, keep the others", () => {
    const patch = [
      "diff --git a/innocent.txt b/innocent.txt",
      "new file mode 100644",
      `index ${id("0")}..${id("a")}`,
      "--- /dev/null",
      "+++ b/innocent.txt",
      "@@ -0,0 +1 @@",
      "+TOKEN=secret",
      "diff --git a/ok.txt b/ok.txt",
      `index ${id("c")}..${id("d")} 100644`,
      "--- a/ok.txt",
      "+++ b/ok.txt",
      "@@ -1 +1 @@",
      "-old",
      "+new"
    ].join("\n")
    const out = GitOutput.hideSecretDiffs(patch, secret, new Set([id("a")]))
    expect(out).toContain("[minicode: diff of secret file innocent.txt hidden]")
    expect(out).not.toContain("TOKEN=secret")
    expect(out).toContain("+new")
    expect(GitOutput.hideSecretDiffs(patch, secret)).toContain("TOKEN=secret")
  })
})

describe("patch paths", () => {
  it("every header line's path, quoted names unquoted and names with spaces split every way, anywhere in a text", () => {
    const text = [
      "add config",
      "# ------------------------ >8 ------------------------",
      'diff --git "a/caf\\303\\251/.env" "b/caf\\303\\251/.env"',
      "new file mode 100644",
      "--- /dev/null",
      '+++ "b/caf\\303\\251/.env"',
      "@@ -0,0 +1 @@",
      "+SECRET=x",
      "diff --git a/my conf/.env b/my conf/.env",
      "+++ b/my conf/.env\t",
      "rename from old dir/.envrc",
      "rename to new.txt"
    ].join("\n")
    const paths = GitOutput.patchPaths(text)
    expect(paths).toContain("café/.env")
    expect(paths).toContain("my conf/.env")
    expect(paths).toContain("old dir/.envrc")
    expect(paths).toContain("new.txt")
    expect(paths).not.toContain("/dev/null")
    expect(GitOutput.patchPaths("a message with no patch\n--- a note")).toEqual(["a note"])
  })
})
