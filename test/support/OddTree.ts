/**
 * A search tree shaped unlike bench/tree (issue 22's held-out runs use another tree): deterministic from a seed, a
 * few thousand files, with the edge cases real repositories have, for the parity tests of grep, glob and repo_map
 * against `rg`, `rg --files` and `git grep`.
 *
 * Shape (the seed moves names, depths and contents; the edge cases are always there):
 * - `svc/<name>/…`: a few services with uneven fan-out (one folder with several hundred files, others with a
 *   handful), mixed languages (TypeScript, TSX, JavaScript, Python, Go, Rust, Ruby, Lua, Kotlin, shell, Markdown);
 * - `deep/d0/d1/…/d44/leaf.ts`: a chain 45 folders deep;
 * - `edge/`: line endings (CRLF, a last line without newline, `\r` alone), a line over 1 MB, a file over 5 MB
 *   (repeated content), a sparse file over 64 MB (a 70 MB line of NULs after 16 KiB of text), binaries (a NUL early, a NUL after 1 MB), UTF-16 with BOM, Latin-1 bytes, a UTF-8 BOM, empty
 *   files, a pattern present only in a binary file;
 * - `names/`: `a b.ts`, `ü.ts`, `[x].ts`, `*.ts`, `-n.ts`, `#x`, a name with a newline (Linux allows it), `.dot.ts`;
 * - ignore files: a root .gitignore and nested ones with negations (`!keep.log`), an anchored rule (`/anchored`), a
 *   folder rule (`dir/`), `**\/x`, an escaped `\#`; a `.ignore` and an `.rgignore` (not honoured: see README);
 *   `.git/info/exclude` (honoured) and a `core.excludesFile` (not honoured);
 * - a nested repository (`vendor/nested-repo/`, its own ignore scope and info/exclude);
 * - secrets (`.env`, `id_rsa`, `*.pem`, `.ssh/`) holding the marker; symlinks to files and folders inside and
 *   outside the tree (`outside/` is a sibling of the tree).
 *
 * Every file that holds the marker `ODD_NEEDLE` says so on known lines; `oddMarkers` names the words.
 * The tree is a git repository with everything committed but the ignored files (so `git grep` sees what grep does).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { rng } from "../../bench/tree/generate.js"

export const oddMarkers = {
  needle: "ODD_NEEDLE",
  /** Only in a binary file (NUL early). */
  binaryOnly: "ONLY_IN_BINARY_QJ",
  /** Only in the > 5 MB file, on `bigHits` lines. */
  big: "BIG_FILE_MARK",
  bigHits: 7,
  /** In the UTF-16 file (as UTF-16, so never as UTF-8 text). */
  utf16: "UTF16_MARK"
} as const

export interface OddTreeOptions {
  /** The tree's folder (created); `outside/` is made beside it. */
  readonly dir: string
  readonly seed: number
  /** About how many ordinary source files (the edge cases come on top). */
  readonly files?: number
  /** Bytes of the big text file (default 5.5 MB). */
  readonly bigBytes?: number
  /** false: no sparse file over 64 MB. */
  readonly huge?: boolean
}

const langs: ReadonlyArray<{ readonly ext: string; readonly body: (name: string, r: () => number) => string }> = [
  { ext: "ts", body: (n, r) => `import { ${n}Dep } from "./dep"\nexport function ${n}(x: number): number {\n  return x * ${Math.floor(r() * 100)}\n}\nexport class ${n}Box {\n  get() { return ${n}(1) }\n}\n` },
  { ext: "tsx", body: (n) => `export const ${n} = (p: { a: string }) => <div>{p.a}</div>\n` },
  { ext: "js", body: (n) => `const dep = require("./dep")\nfunction ${n}(a) {\n  return dep(a)\n}\nmodule.exports = { ${n} }\n` },
  { ext: "py", body: (n) => `import os\n\ndef ${n}(x):\n    return os.path.join(x, "${n}")\n\nclass ${n}Cls:\n    pass\n` },
  { ext: "go", body: (n) => `package svc\n\nfunc ${n}(x int) int {\n\treturn x + 1\n}\n` },
  { ext: "rs", body: (n) => `pub fn ${n}(x: u32) -> u32 {\n    x + 1\n}\npub struct ${n}S;\n` },
  { ext: "rb", body: (n) => `class ${n}\n  def call(x)\n    x\n  end\nend\n` },
  { ext: "lua", body: (n) => `local function ${n}(x)\n  return x\nend\nreturn ${n}\n` },
  { ext: "kt", body: (n) => `fun ${n}(x: Int): Int {\n    return x\n}\nclass ${n}K\n` },
  { ext: "sh", body: (n) => `#!/bin/sh\n${n}() {\n  echo "$1"\n}\n` },
  { ext: "md", body: (n) => `# ${n}\n\nSome words about ${n}.\n` }
]

export interface OddTree {
  readonly root: string
  readonly outside: string
  /** Workspace-relative paths of the files holding `needle` that grep must never show (secrets). */
  readonly secrets: ReadonlyArray<string>
  /** The global excludes file the tree was committed with (not honoured by grep or glob: it is the user's, not the repository's). */
  readonly globalExcludes: string
}

export const generateOddTree = (options: OddTreeOptions): OddTree => {
  const r = rng(options.seed)
  const root = options.dir
  const outside = path.join(path.dirname(root), `${path.basename(root)}-outside`)
  fs.mkdirSync(root, { recursive: true })
  fs.mkdirSync(outside, { recursive: true })
  const put = (rel: string, content: string | Uint8Array) => {
    const abs = path.join(root, rel)
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, content)
  }
  const N = oddMarkers.needle
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)] as A

  // Ordinary sources, uneven fan-out: one wide folder, a few narrow deep ones.
  const total = options.files ?? 2000
  const services = ["alpha", "beta-svc", "Gamma", "delta_x", "épsilon"]
  for (let i = 0; i < total; i++) {
    const lang = pick(langs)
    const svc = pick(services)
    const wide = i % 3 === 0
    const depth = wide ? 0 : 1 + Math.floor(r() * 4)
    const folders = Array.from({ length: depth }, (_, k) => `m${Math.floor(r() * (k + 3))}`)
    const name = `f${i}_${Math.floor(r() * 1e6).toString(36)}`
    const rel = path.posix.join("svc", svc, wide ? "flat" : "src", ...folders, `${name}.${lang.ext}`)
    let body = lang.body(name, r)
    if (i % 17 === 0) body += `// ${N} plain ${i}\n`
    if (i % 23 === 0) body += `// naïve ${N.toLowerCase()} ${i}\n`
    put(rel, body)
  }

  // A chain 45 folders deep.
  const deep = Array.from({ length: 45 }, (_, k) => `d${k}`)
  put(path.posix.join("deep", ...deep, "leaf.ts"), `export const leaf = "${N} at depth 45"\n`)
  put(path.posix.join("deep", ...deep.slice(0, 20), "mid.py"), `def mid():\n    return "${N} mid"\n`)

  // Line endings and encodings.
  put("edge/crlf.ts", `const a = 1\r\n// ${N} crlf line\r\nexport const b = "${N}"\r\nend\r\n`)
  put("edge/nofinal.ts", `first line\n// ${N} last line without newline`)
  put("edge/cr-only.txt", `one ${N}\rtwo ${N}\rthree\n`)
  put("edge/empty.ts", "")
  put("edge/empty-lines.txt", "\n\n\n")
  put("edge/utf8-bom.ts", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${N} after a BOM\nsecond\n`)]))
  put("edge/latin1.txt", Buffer.concat([Buffer.from(`caf`), Buffer.from([0xe9]), Buffer.from(` ${N} latin1\nplain\n`)]))
  put("edge/invalid-utf8.ts", Buffer.concat([Buffer.from(`// ${N} `), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from(` bad bytes\n`)]))
  put("edge/utf16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${oddMarkers.utf16} ${N}\r\n`, "utf16le")]))
  put("edge/unicode.ts", `const Ünïcode = "ÄÖÜ straße ${N}"\nconst ǅ = "ǆ titlecase"\nconst ſ = "long s"\n`)
  // A long line (over 1 MB), its match at the end; then a short matching line.
  put("edge/long-line.js", `var x = "${"x".repeat(1_200_000)} ${N} far\n// ${N} after the long line\n`)
  // Binary: a NUL early (matches only there), a NUL after 1 MB (text before it).
  put("edge/early-nul.bin", Buffer.concat([Buffer.from(`${oddMarkers.binaryOnly} ${N}\n`), Buffer.alloc(8, 0), Buffer.from("tail\n")]))
  put(
    "edge/late-nul.dat",
    Buffer.concat([Buffer.from(`head ${N}\n`), Buffer.from("filler line\n".repeat(100_000)), Buffer.alloc(4, 0), Buffer.from(`\nafter the nul ${N}\n`)])
  )
  // Over 5 MB: repeated lines, the mark on known lines.
  const bigBytes = options.bigBytes ?? 5.5 * 1024 * 1024
  const line = "the quick brown fox jumps over the lazy dog 0123456789\n"
  const lines = Math.ceil(bigBytes / line.length)
  const marked = new Set(Array.from({ length: oddMarkers.bigHits }, (_, k) => Math.floor(((k + 1) * lines) / (oddMarkers.bigHits + 1))))
  const chunks: Array<string> = []
  for (let i = 0; i < lines; i++) chunks.push(marked.has(i) ? `${oddMarkers.big} ${N} ${i}\n` : line)
  put("edge/big.txt", chunks.join(""))

  // Over 64 MB, sparse (nothing written but its ends): 16 KiB of text, a hole of NULs (one line of 70 MB: text by
  // git's rule, the NUL being past 8 KiB), then a last matching line.
  if (options.huge !== false) {
    const huge = path.join(root, "edge/huge-sparse.dat")
    fs.writeFileSync(huge, `first ${N} of the huge file\n${"0123456789abcde\n".repeat(1024)}`)
    const fd = fs.openSync(huge, "r+")
    fs.writeSync(fd, `\nlast ${N} of the huge file\n`, 70 * 1024 * 1024)
    fs.closeSync(fd)
  }

  // Regex cases.
  put("regex/words.txt", `foo_bar foobar foo.bar\n12 apples\nend\r\nendless\nα beta γ\nCAFÉ café Café\nStraße STRASSE\nthe long ſ\n3 \u212a cold\nσοφός ΣΟΦΟΣ\n`)
  put("regex/anchors.txt", `start middle end\n  indented ${N}\n${N}\n`)

  // Awkward names.
  const awkward = ["a b.ts", "ü.ts", "[x].ts", "*.ts", "-n.ts", "#x", "$dollar.ts", "quote'.ts", "semi;colon.ts", ".dot.ts", "UPPER.TS", "tab\there.ts"]
  awkward.forEach((name, i) => put(`names/${name}`, `export const named${i} = 1 // ${N} in ${JSON.stringify(name)}\n`))
  put("names/new\nline.ts", `export const newline = 1 // ${N} in a name with a newline\n`)

  // Ignore files.
  put(".gitignore", ["# comment", "*.log", "!keep.log", "/anchored", "build/", "**/x-ignored", "\\#hash", "tmp-*", "local-excluded.txt.bak", ""].join("\n"))
  put("keep.log", `${N} kept by negation\n`)
  put("drop.log", `${N} ignored log\n`)
  put("anchored", `${N} anchored at root (ignored)\n`)
  put("sub/anchored", `${N} anchored rule does not reach here\n`)
  put("build/out.js", `${N} in build\n`)
  put("svc/alpha/build/out.js", `${N} in nested build\n`)
  put("svc/alpha/x-ignored", `${N} ignored by **/x\n`)
  put("#hash", `${N} escaped hash rule (ignored)\n`)
  put("tmp-1.ts", `${N} tmp (ignored)\n`)
  put("svc/beta-svc/.gitignore", ["*.gen.ts", "!important.gen.ts", "cache/", ""].join("\n"))
  put("svc/beta-svc/a.gen.ts", `${N} generated (ignored)\n`)
  put("svc/beta-svc/important.gen.ts", `${N} important generated (kept)\n`)
  put("svc/beta-svc/cache/c.ts", `${N} cache (ignored)\n`)
  put("svc/beta-svc/deeper/.gitignore", ["!*.gen.ts", ""].join("\n"))
  put("svc/beta-svc/deeper/b.gen.ts", `${N} re-included deeper\n`)
  // rg-only ignore files: git does not honour them; neither does grep.
  put("svc/Gamma/.ignore", "dotignored.ts\n")
  put("svc/Gamma/dotignored.ts", `${N} named in .ignore\n`)
  put("svc/Gamma/.rgignore", "rgignored.ts\n")
  put("svc/Gamma/rgignored.ts", `${N} named in .rgignore\n`)
  // .git/info/exclude and a core.excludesFile.
  put("info-excluded.txt", `${N} in .git/info/exclude\n`)
  put("globally-excluded.txt", `${N} in core.excludesFile\n`)
  put("sub/x-1.txt", `${N} in .git/info/exclude, anchored\n`)
  put("sub/x-kept.txt", `${N} re-included in .git/info/exclude\n`)

  // Secrets.
  const secrets = [".env", "svc/alpha/.env.local", "config/id_rsa", "certs/server.pem", ".ssh/notes.txt", "svc/Gamma/prod.tfvars"]
  for (const s of secrets) put(s, `${N} secret ${s}\n`)

  // Symlinks.
  fs.writeFileSync(path.join(outside, "leak.txt"), `${N} outside the tree\n`)
  fs.mkdirSync(path.join(outside, "dir"), { recursive: true })
  fs.writeFileSync(path.join(outside, "dir", "leak.ts"), `${N} outside folder\n`)
  fs.mkdirSync(path.join(root, "links"), { recursive: true })
  fs.symlinkSync(path.join(outside, "leak.txt"), path.join(root, "links/out-file.txt"))
  fs.symlinkSync(path.join(outside, "dir"), path.join(root, "links/out-dir"))
  fs.symlinkSync("../edge/crlf.ts", path.join(root, "links/in-file.ts"))
  fs.symlinkSync("../regex", path.join(root, "links/in-dir"))
  fs.symlinkSync("nowhere", path.join(root, "links/dangling.ts"))

  // A git repository with everything committed that is not ignored.
  const git = (...args: ReadonlyArray<string>) =>
    execFileSync("git", ["-c", "user.name=odd", "-c", "user.email=odd@example.invalid", "-c", "commit.gpgsign=false", ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root, XDG_CONFIG_HOME: path.join(root, ".no-xdg") }
    })
  // A nested repository: its own ignore scope (the root's `*.log` does not reach in), its own info/exclude.
  put("vendor/nested-repo/inner.log", `${N} in a nested repository, a .log\n`)
  put("vendor/nested-repo/excluded-inner.ts", `${N} in the nested repository's info/exclude\n`)
  put("vendor/nested-repo/src/lib.ts", `export const nested = "${N}"\n`)
  git("init", "-q", "-b", "main", "vendor/nested-repo")
  fs.writeFileSync(path.join(root, "vendor/nested-repo/.git/info/exclude"), "excluded-inner.ts\n")
  git("-C", "vendor/nested-repo", "add", "-A")
  git("-C", "vendor/nested-repo", "commit", "-q", "-m", "nested")
  git("init", "-q", "-b", "main")
  fs.writeFileSync(path.join(root, ".git/info/exclude"), "info-excluded.txt\nsub/x-*.txt\n!sub/x-kept.txt\n")
  fs.writeFileSync(path.join(outside, "global-excludes"), "globally-excluded.txt\n")
  // A user's global excludes (core.excludesFile): in force while the tree is committed, then gone from the
  // repository's config, as a user's own is (the tests run git as the user would with it: `globalExcludes`).
  git("config", "core.excludesFile", path.join(outside, "global-excludes"))
  git("add", "-A")
  git("commit", "-q", "-m", "odd tree")
  git("config", "--unset", "core.excludesFile")
  return { root, outside, secrets, globalExcludes: path.join(outside, "global-excludes") }
}

const quietGit = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }

/**
 * What git lists in `dir` (`ls-files --cached --others --exclude-standard`, the user's global excludes left out), a
 * nested repository (a gitlink in the outer one) listed as its own git lists it: the files grep, glob and repo_map
 * are meant to see.
 */
export const gitListing = (dir: string): ReadonlyArray<string> =>
  execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: dir, env: quietGit, maxBuffer: 1 << 28 })
    .toString()
    .split("\0")
    .filter((f) => f !== "")
    .flatMap((f) => (fs.lstatSync(path.join(dir, f)).isDirectory() ? gitListing(path.join(dir, f)).map((g) => `${f}/${g}`) : [f]))
