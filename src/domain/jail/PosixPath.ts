/**
 * Lexical POSIX path arithmetic, pure (the domain may not import node:path). Containment is decided on
 * whole segments, never on string prefixes: `/work/app` does not contain `/work/app-secrets`.
 *
 * Most paths that reach these functions are already canonical (what `resolve` returns: absolute, no empty, `.` or
 * `..` segment, no trailing slash); for those the answers come from plain string operations, which give the same
 * result as the segment arithmetic without splitting. Anything else takes the segment route.
 */

export const segments = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s !== "" && s !== ".")

/** Whether `path[from…]` is a run of segments joined by single slashes, none empty, `.` or `..`, no trailing slash. */
const plainSegments = (path: string, from: number): boolean => {
  const n = path.length
  if (from >= n) return false
  let start = from
  for (let i = from; i <= n; i++) {
    if (i < n && path.charCodeAt(i) !== 47) continue
    const len = i - start
    if (len === 0) return false
    if (path.charCodeAt(start) === 46 && (len === 1 || (len === 2 && path.charCodeAt(start + 1) === 46))) return false
    start = i + 1
  }
  return true
}

/** The form `resolve` returns: `/` or `/seg/seg…` with plain segments. */
const isCanonical = (path: string): boolean => path === "/" || (path.charCodeAt(0) === 47 && plainSegments(path, 1))

/** Resolves `..` and `.` lexically against an absolute base. The result is absolute with no trailing slash. */
export const resolve = (base: string, path: string): string => {
  if (path.charCodeAt(0) === 47) {
    if (isCanonical(path)) return path
  } else if (isCanonical(base)) {
    if (path === "") return base
    if (plainSegments(path, 0)) return base === "/" ? "/" + path : base + "/" + path
  }
  const start = path.startsWith("/") ? [] : [...segments(base)]
  for (const seg of segments(path)) {
    if (seg === "..") start.pop()
    else start.push(seg)
  }
  return "/" + start.join("/")
}

export const isInside = (root: string, path: string): boolean => {
  if (isCanonical(root) && isCanonical(path)) {
    return root === "/" || path === root || (path.startsWith(root) && path.charCodeAt(root.length) === 47)
  }
  const r = segments(root)
  const p = segments(path)
  if (p.length < r.length) return false
  return r.every((seg, i) => p[i] === seg)
}

/** The relative path from root to path, assuming `isInside(root, path)`; "" for the root itself. */
export const relative = (root: string, path: string): string => {
  if (isCanonical(root) && isCanonical(path)) {
    if (path === root) return ""
    if (root === "/") return path.slice(1)
    if (path.startsWith(root) && path.charCodeAt(root.length) === 47) return path.slice(root.length + 1)
  }
  return segments(path).slice(segments(root).length).join("/")
}

export const basename = (path: string): string => {
  if (path !== "/" && isCanonical(path)) return path.slice(path.lastIndexOf("/") + 1)
  const segs = segments(path)
  return segs[segs.length - 1] ?? ""
}

export const dirname = (path: string): string => {
  const segs = segments(path)
  return "/" + segs.slice(0, -1).join("/")
}

export const join = (...parts: ReadonlyArray<string>): string => resolve("/", parts.join("/"))
