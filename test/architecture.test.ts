/**
 * The folders are the architecture (see STYLE.md): the domain imports only effect and itself, ports add the
 * domain, adapters never reach into programs, and only src/bin.ts (plus the documented Promise face in
 * src/index.ts) runs an Effect. Checked on the import statements of every source file.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const files = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : []
  })

const imports = (file: string): ReadonlyArray<string> =>
  [...fs.readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)[^"'\n]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map(
    (m) => m[1] ?? m[2] ?? ""
  )

const violations = (dir: string, allowed: (specifier: string) => boolean) =>
  files(dir).flatMap((f) => imports(f).filter((s) => !allowed(s)).map((s) => `${f}: ${s}`))

describe("architecture", () => {
  it("src/domain imports only effect and the domain", () => {
    expect(violations("src/domain", (s) => s === "effect" || /^\.\/[A-Za-z]+\.js$/.test(s))).toEqual([])
  })

  it("src/ports imports only effect, the domain and other ports", () => {
    expect(violations("src/ports", (s) => s === "effect" || s.startsWith("../domain/") || /^\.\/[A-Za-z]+\.js$/.test(s))).toEqual([])
  })

  it("src/adapters never import programs", () => {
    expect(violations("src/adapters", (s) => !s.startsWith("../programs/"))).toEqual([])
  })

  it("no Effect is run outside src/bin.ts and the Promise API in src/index.ts", () => {
    const runners = files("src")
      .filter((f) => f !== path.join("src", "bin.ts") && f !== path.join("src", "index.ts"))
      .filter((f) => /Effect\.run(Promise|Sync|Fork|Callback)/.test(fs.readFileSync(f, "utf8")))
    expect(runners).toEqual([])
  })

  it("the domain reads no process state", () => {
    expect(files("src/domain").filter((f) => /\bprocess\.(env|cwd|argv|exit|pid|platform|stdin|stdout)\b|\bDate\.now\(|Math\.random\(/.test(fs.readFileSync(f, "utf8")))).toEqual([])
  })
})
