/**
 * README.md is a guide for the first five minutes and the reference lives in docs/ (issue 44 item 2): the README
 * stays short and readable on a terminal, every docs/ page it links exists and every docs/ page is linked from it
 * (none orphaned), every link between the pages and their anchors lands, and what it states about exit codes and
 * flags is what the CLI has.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { table } from "../../src/cli/ExitCode.js"

const repo = path.resolve(__dirname, "../..")
const read = (rel: string) => fs.readFileSync(path.join(repo, rel), "utf8")
const readme = read("README.md")
const docs = fs.readdirSync(path.join(repo, "docs")).filter((f) => f.endsWith(".md")).sort()

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const anchors = (text: string) => new Set(text.split("\n").filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ""))))

/** Markdown links `[text](target)` outside code spans, as [target, line number]. */
const links = (text: string): Array<readonly [string, number]> =>
  text.split("\n").flatMap((line, i) => [...line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => [m[1] ?? "", i + 1] as const))

describe("README.md is a guide", () => {
  it("has at most 200 lines, none over 200 characters", () => {
    const lines = readme.split("\n")
    expect(lines.length).toBeLessThanOrEqual(201) // the final newline leaves one empty element
    const long = lines.map((l, i) => [i + 1, l.length] as const).filter(([, n]) => n > 200)
    expect(long, "lines over 200 characters (line, length)").toEqual([])
  })

  it("links every docs/ page, and every docs/ link it has exists", () => {
    const linked = links(readme).map(([t]) => t).filter((t) => t.startsWith("docs/"))
    for (const target of linked) expect(fs.existsSync(path.join(repo, target.split("#")[0] ?? "")), target).toBe(true)
    const pages = new Set(linked.map((t) => (t.split("#")[0] ?? "").slice("docs/".length)))
    expect(docs.filter((d) => !pages.has(d)), "docs/ pages the README does not link").toEqual([])
    expect(docs.length).toBeGreaterThanOrEqual(8)
  })

  it("every relative link and anchor in the README and in docs/ lands", () => {
    const files = ["README.md", ...docs.map((d) => `docs/${d}`)]
    const broken: Array<string> = []
    for (const file of files) {
      for (const [target, line] of links(read(file))) {
        if (/^[a-z]+:/.test(target)) continue
        const [rel = "", anchor] = target.split("#")
        const dest = rel === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rel))
        if (!fs.existsSync(path.join(repo, dest))) broken.push(`${file}:${line} → ${target} (no such file)`)
        else if (anchor !== undefined && dest.endsWith(".md") && !anchors(read(dest)).has(anchor)) broken.push(`${file}:${line} → ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })

  it("states the CLI's exit codes as the one table has them, in the README and in docs/cli.md", () => {
    const summary = readme.split("\n").find((l) => l.includes("0 done")) ?? ""
    const codes = [...summary.matchAll(/\b(\d+) [a-z]/g)].map((m) => Number(m[1]))
    expect(codes).toEqual(table.map(([n]) => n))
    const rows = read("docs/cli.md").split("\n").filter((l) => /^\| \d+ \|/.test(l)).map((l) => Number(l.split("|")[1]))
    expect(rows).toEqual(table.map(([n]) => n))
  })

  it("names only flags the CLI has", () => {
    const source = fs.readdirSync(path.join(repo, "src/cli")).map((f) => read(`src/cli/${f}`)).join("\n") + read("src/serve/Main.ts")
    const flags = new Set([...readme.matchAll(/(?<![\w-])--([a-z][a-z-]+)/g)].map((m) => m[1] ?? ""))
    const unknown = [...flags].filter((f) => !source.includes(`"${f}"`) && !source.includes(`"--${f}"`))
    expect(unknown, "flags in the README that no command defines").toEqual([])
  })
})
