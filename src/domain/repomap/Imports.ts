/**
 * Import edges: the workspace files an import specifier names, per language. TypeScript/JavaScript, Python, Rust
 * and shell resolve relative to the importing file; Go, Java, C#, C/C++ includes, Ruby and PHP by the path the
 * specifier spells, matched against the end of workspace paths (a Go import path ends with its package's
 * directory, `com.acme.Util` lives in `…/com/acme/Util.java`, `App\Models\User` in `…/Models/User.php`). Pure.
 */
import { languageOf } from "./RepoMap.js"

/** The workspace's source files, indexed for resolution. */
export interface FileIndex {
  readonly files: ReadonlySet<string>
  /** File name → paths with that name. */
  readonly byName: ReadonlyMap<string, ReadonlyArray<string>>
  /** Directory → its files. */
  readonly inDir: ReadonlyMap<string, ReadonlyArray<string>>
  /** A directory's last segment → directories with it. */
  readonly dirsByName: ReadonlyMap<string, ReadonlyArray<string>>
}

const baseOf = (path: string) => path.slice(path.lastIndexOf("/") + 1)
export const dirOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "")

const push = <K, V>(map: Map<K, Array<V>>, key: K, value: V) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

export const indexFiles = (files: Iterable<string>): FileIndex => {
  const set = new Set(files)
  const byName = new Map<string, Array<string>>()
  const inDir = new Map<string, Array<string>>()
  const dirsByName = new Map<string, Array<string>>()
  for (const f of set) {
    push(byName, baseOf(f), f)
    const dir = dirOf(f)
    if (!inDir.has(dir)) push(dirsByName, baseOf(dir), dir)
    push(inDir, dir, f)
  }
  return { files: set, byName, inDir, dirsByName }
}

const isIndex = (files: ReadonlySet<string> | FileIndex): files is FileIndex => "byName" in files

const normalise = (parts: ReadonlyArray<string>): string | undefined => {
  const out: Array<string> = []
  for (const p of parts) {
    if (p === "" || p === ".") continue
    if (p === "..") {
      if (out.length === 0) return undefined
      out.pop()
    } else out.push(p)
  }
  return out.join("/")
}

const sharedPrefix = (a: string, b: string) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
/** Of several candidates, the one nearest the importing file. */
const nearest = (from: string, candidates: ReadonlyArray<string>) =>
  candidates.reduce<string | undefined>((best, c) => (best === undefined || sharedPrefix(from, c) > sharedPrefix(from, best) ? c : best), undefined)

/** The file whose path is `suffix` or ends with `/suffix`, nearest `from`. */
const bySuffix = (index: FileIndex, from: string, suffix: string): string | undefined => {
  if (index.files.has(suffix)) return suffix
  const candidates = (index.byName.get(baseOf(suffix)) ?? []).filter((f) => f.endsWith(`/${suffix}`))
  return nearest(from, candidates)
}

/** The directory whose path ends with the most trailing segments of `segments` (at least `min` of them). */
const dirBySuffix = (index: FileIndex, from: string, segments: ReadonlyArray<string>, min: number): string | undefined => {
  const last = segments[segments.length - 1]
  if (last === undefined) return undefined
  let best: { readonly dir: string; readonly n: number } | undefined
  for (const dir of index.dirsByName.get(last) ?? []) {
    const parts = dir.split("/")
    let n = 0
    while (n < segments.length && n < parts.length && parts[parts.length - 1 - n] === segments[segments.length - 1 - n]) n++
    if (n >= min && (best === undefined || n > best.n || (n === best.n && sharedPrefix(from, dir) > sharedPrefix(from, best.dir)))) best = { dir, n }
  }
  return best?.dir
}

const filesIn = (index: FileIndex, dir: string | undefined, ext: RegExp) =>
  dir === undefined ? [] : (index.inDir.get(dir) ?? []).filter((f) => ext.test(f) && !f.endsWith("_test.go"))

/** Every workspace file an import names (a Go package or a wildcard import names a directory's files). */
export const resolveImports = (from: string, spec: string, files: ReadonlySet<string> | FileIndex): ReadonlyArray<string> => {
  const index = isIndex(files) ? files : indexFiles(files)
  const language = languageOf(from)
  const first = (candidates: ReadonlyArray<string | undefined>) => {
    const found = candidates.find((c): c is string => c !== undefined && index.files.has(c))
    return found === undefined ? [] : [found]
  }
  const here = dirOf(from)
  switch (language) {
    case "ts": {
      if (!spec.startsWith(".")) return []
      const base = normalise([...here.split("/"), ...spec.split("/")])
      if (base === undefined) return []
      const stem = base.replace(/\.(m|c)?jsx?$/, "")
      const exts = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]
      return first([base, ...exts.map((e) => stem + e), ...exts.map((e) => `${base}/index${e}`)])
    }
    case "py": {
      const dots = /^\.*/.exec(spec)?.[0].length ?? 0
      const rest = spec.slice(dots).split(".").filter((s) => s !== "")
      const bases: Array<ReadonlyArray<string>> = []
      if (dots > 0) {
        const up = here.split("/").filter((s) => s !== "")
        if (dots - 1 > up.length) return []
        bases.push(up.slice(0, up.length - (dots - 1)))
      } else bases.push([], ["src"])
      for (const b of bases) {
        const mod = normalise([...b, ...rest])
        if (mod === undefined) continue
        const found = first([`${mod}.py`, `${mod}.pyi`, `${mod}/__init__.py`])
        if (found.length > 0) return found
      }
      return []
    }
    case "rs": {
      if (spec.includes("::")) {
        // `use crate::a::b::Item`: the longest module path that is a file, from the crate's root or from here.
        const [head, ...path] = spec.split("::")
        // A module's children live beside it (`a/b.rs` → `a/b/`), a mod.rs's or crate root's in its own folder.
        const folderModule = /(?:^|\/)(?:mod|lib|main)\.rs$/.test(from)
        const own = folderModule ? here : from.replace(/\.rs$/, "")
        const root = head === "crate" ? undefined : head === "super" ? (folderModule ? dirOf(here) : here) : own
        for (let n = path.length; n > 0; n--) {
          const mod = path.slice(0, n).join("/")
          const found =
            root === undefined
              ? (bySuffix(index, from, `src/${mod}.rs`) ?? bySuffix(index, from, `src/${mod}/mod.rs`))
              : first([normalise([root, `${mod}.rs`]), normalise([root, mod, "mod.rs"])])[0]
          if (found !== undefined) return [found]
        }
        return []
      }
      const own = from.endsWith("/mod.rs") || from.endsWith("/lib.rs") || from.endsWith("/main.rs") || !from.includes("/") ? here : from.replace(/\.rs$/, "")
      return first([normalise([own, `${spec}.rs`]), normalise([own, spec, "mod.rs"])])
    }
    case "sh":
      return first([normalise([here, spec]), normalise([spec])])
    case "go": {
      const segments = spec.split("/").filter((s) => s !== "")
      return filesIn(index, dirBySuffix(index, from, segments, Math.min(2, segments.length)), /\.go$/)
    }
    case "java": {
      const parts = spec.split(".")
      if (parts[parts.length - 1] === "*") return filesIn(index, dirBySuffix(index, from, parts.slice(0, -1), parts.length - 1), /\.java$/)
      // `import static a.B.member` names B.
      for (let n = parts.length; n >= 2; n--) {
        const found = bySuffix(index, from, `${parts.slice(0, n).join("/")}.java`)
        if (found !== undefined) return [found]
      }
      return []
    }
    case "cs": {
      const parts = spec.split(".")
      return filesIn(index, dirBySuffix(index, from, parts, Math.min(2, parts.length)), /\.cs$/)
    }
    case "c":
    case "cpp": {
      const local = normalise([...here.split("/"), ...spec.split("/")])
      if (local !== undefined && index.files.has(local)) return [local]
      const found = bySuffix(index, from, normalise(spec.split("/")) ?? spec)
      return found === undefined ? [] : [found]
    }
    case "rb": {
      if (spec.startsWith("./") || spec.startsWith("../")) {
        const base = normalise([...here.split("/"), ...spec.split("/")])
        return base === undefined ? [] : first([base, `${base}.rb`])
      }
      const found = bySuffix(index, from, spec.endsWith(".rb") ? spec : `${spec}.rb`)
      return found === undefined ? [] : [found]
    }
    case "php": {
      if (spec.includes("\\")) {
        // PSR-4: `App\Models\User` lives in `…/Models/User.php` (the vendor prefix maps to a folder of any name).
        const parts = spec.split("\\").filter((s) => s !== "")
        for (let n = parts.length; n >= Math.min(2, parts.length); n--) {
          const found = bySuffix(index, from, `${parts.slice(parts.length - n).join("/")}.php`)
          if (found !== undefined) return [found]
        }
        return []
      }
      const rel = spec.replace(/^\//, "")
      return first([normalise([...here.split("/"), ...rel.split("/")]), normalise(rel.split("/"))])
    }
    default:
      return []
  }
}

/** The workspace file an import names, if it is one of `files` (workspace-relative paths). */
export const resolveImport = (from: string, spec: string, files: ReadonlySet<string> | FileIndex): string | undefined =>
  resolveImports(from, spec, files)[0]
