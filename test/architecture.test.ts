/**
 * The folders are the architecture (see STYLE.md and the README's "Architecture"): the domain imports only effect
 * and itself, ports add the domain (never an adapter), adapters never reach into the kernel, the tools, the server
 * or the CLI, the programs import no adapter (src/app is the composition root that chooses them), and only
 * src/bin.ts (plus the documented Promise face in src/index.ts) runs an Effect, be it through `Effect.run*` or a
 * `Runtime`'s runners: a program that must run one from a foreign callback is given an `EffectRunner`. Checked on the import statements of
 * every source file.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const files = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : []
  })

/** Static imports and re-exports (one line or several), side-effect imports, and dynamic `import("…")`. */
const imports = (file: string): ReadonlyArray<string> =>
  [
    ...fs
      .readFileSync(file, "utf8")
      .matchAll(/(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)
  ].map((m) => m[1] ?? m[2] ?? m[3] ?? "")

/** Where a relative import lands, as a path under the repository ("src/domain/core/Tools.ts"). */
const target = (file: string, specifier: string) => path.normalize(path.join(path.dirname(file), specifier))

const violations = (dir: string, allowed: (specifier: string, file: string) => boolean) =>
  files(dir).flatMap((f) => imports(f).filter((s) => !allowed(s, f)).map((s) => `${f}: ${s}`))

const under = (folder: string) => (file: string, specifier: string) =>
  specifier.startsWith(".") && target(file, specifier).startsWith(path.normalize(folder) + path.sep)

const programs = ["src/kernel", "src/tools", "src/serve", "src/cli"]


describe("architecture", () => {
  it("src/domain imports only effect and the domain", () => {
    expect(violations("src/domain", (s, f) => s === "effect" || under("src/domain")(f, s))).toEqual([])
  })

  it("src/ports imports only effect, the domain and other ports", () => {
    expect(violations("src/ports", (s, f) => s === "effect" || under("src/domain")(f, s) || under("src/ports")(f, s))).toEqual([])
  })

  it("src/ports import no adapter", () => {
    expect(violations("src/ports", (s, f) => !under("src/adapters")(f, s))).toEqual([])
  })

  it("programs (kernel, tools, serve, cli) import no adapter: only src/app, src/bin.ts and src/index.ts choose them", () => {
    expect(programs.flatMap((dir) => violations(dir, (s, f) => !under("src/adapters")(f, s)))).toEqual([])
  })

  it("src/adapters import no program (kernel, tools, serve, cli, app)", () => {
    expect(violations("src/adapters", (s, f) => ![...programs, "src/app"].some((p) => under(p)(f, s)))).toEqual([])
  })

  it("no Effect is run outside src/bin.ts and the Promise API in src/index.ts (Effect.run*, Runtime.run*, a runtime's run*, runMain)", () => {
    const runners = files("src")
      .filter((f) => f !== path.join("src", "bin.ts") && f !== path.join("src", "index.ts"))
      .filter((f) => /\b(Effect|Runtime)\.run[A-Z]\w*|\bruntime\.run(Promise|Sync|Fork|Callback)|\brunMain\b/.test(fs.readFileSync(f, "utf8")))
    expect(runners).toEqual([])
  })

  it("the domain reads no process state", () => {
    expect(files("src/domain").filter((f) => /\bprocess\.(env|cwd|argv|exit|pid|platform|stdin|stdout)\b|\bDate\.now\(|Math\.random\(/.test(fs.readFileSync(f, "utf8")))).toEqual([])
  })

  it("no source file is over 600 lines", () => {
    const long = files("src")
      .map((f) => ({ f, lines: fs.readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((x) => x.lines > 600)
      .map((x) => `${x.f}: ${x.lines} lines`)
    expect(long).toEqual([])
  })

  it("no optional service lookup turns a missing layer into a quiet default (only the per-call Progress listener)", () => {
    const optional = files("src")
      .filter((f) => f !== path.join("src", "ports", "Progress.ts"))
      .filter((f) => /\bserviceOption\b/.test(fs.readFileSync(f, "utf8")))
    expect(optional).toEqual([])
  })

  it("the import scan sees multi-line, side-effect and dynamic imports", () => {
    const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "arch-")), "Probe.ts")
    fs.writeFileSync(probe, 'import {\n  a,\n  b\n} from "../adapters/fs/NodeFileSystem.js"\nimport "./side.js"\nconst m = () => import("../adapters/x.js")\nexport * from "./re.js"\n')
    expect(imports(probe)).toEqual(["../adapters/fs/NodeFileSystem.js", "./side.js", "../adapters/x.js", "./re.js"])
  })

  it("the old flat folders are gone: src/programs holds nothing", () => {
    expect(fs.existsSync("src/programs")).toBe(false)
  })
})
