/**
 * The README's five-minute tour, run as written through the built CLI in a fresh folder holding a copy of the
 * README (what a fresh clone has): each `npx minicode …` line runs `dist/bin.js` with the same arguments, a line
 * whose comment says "refused" exits 3 with "To proceed:", every other line exits 0, and after the tour's two undos
 * the file it wrote is gone (issue 44 item 2: the tour's commands really work).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const repo = path.resolve(__dirname, "../..")
const bin = path.join(repo, "dist/bin.js")

/** The shell words of a line that uses only plain words and single quotes, as the tour does. */
const words = (line: string): Array<string> => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "")

export const tourLines = (readme: string): Array<{ readonly args: Array<string>; readonly refused: boolean; readonly line: string }> => {
  const section = readme.split("## A five-minute tour")[1] ?? ""
  const block = section.split("```sh\n")[1]?.split("```")[0] ?? ""
  return block
    .split("\n")
    .filter((l) => l.startsWith("npx minicode "))
    .map((line) => {
      const hash = line.search(/\s#\s/)
      const command = hash < 0 ? line : line.slice(0, hash)
      return { args: words(command).slice(2), refused: hash >= 0 && /#\s+refused/.test(line.slice(hash)), line }
    })
}

describe("the README's tour", () => {
  it("runs as written in a fresh folder: reads, refusals, a write, an edit, bash, the journal, two undos", async () => {
    const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8")
    const lines = tourLines(readme)
    expect(lines.map((l) => l.args[0])).toEqual(expect.arrayContaining(["tool", "journal", "undo"]))
    expect(lines.filter((l) => l.args[1] === "bash").length).toBeGreaterThan(0)
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-tour-"))
    const ws = path.join(home, "clone")
    fs.mkdirSync(ws)
    fs.writeFileSync(path.join(ws, "README.md"), readme)
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_STATE_HOME: path.join(home, ".state"), XDG_CACHE_HOME: path.join(home, ".cache") }
    for (const { args, refused, line } of lines) {
      const run = await runCli(bin, args, { cwd: ws, env })
      expect(run.status, `${line}\n${run.stdout}${run.stderr}`).toBe(refused ? 3 : 0)
      if (refused) expect(run.stdout + run.stderr, line).toContain("To proceed:")
    }
    expect(fs.existsSync(path.join(ws, "tour.txt"))).toBe(false)
    expect(fs.readFileSync(path.join(ws, "README.md"), "utf8")).toBe(readme)
  }, 120_000)
})
