/**
 * Lexical POSIX path arithmetic, pure (the domain may not import node:path). Containment is decided on
 * whole segments, never on string prefixes: `/work/app` does not contain `/work/app-secrets`.
 */

export const segments = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s !== "" && s !== ".")

/** Resolves `..` and `.` lexically against an absolute base. The result is absolute with no trailing slash. */
export const resolve = (base: string, path: string): string => {
  const start = path.startsWith("/") ? [] : [...segments(base)]
  for (const seg of segments(path)) {
    if (seg === "..") start.pop()
    else start.push(seg)
  }
  return "/" + start.join("/")
}

export const isInside = (root: string, path: string): boolean => {
  const r = segments(root)
  const p = segments(path)
  if (p.length < r.length) return false
  return r.every((seg, i) => p[i] === seg)
}

/** The relative path from root to path, assuming `isInside(root, path)`; "" for the root itself. */
export const relative = (root: string, path: string): string => segments(path).slice(segments(root).length).join("/")

export const basename = (path: string): string => {
  const segs = segments(path)
  return segs[segs.length - 1] ?? ""
}

export const dirname = (path: string): string => {
  const segs = segments(path)
  return "/" + segs.slice(0, -1).join("/")
}

export const join = (...parts: ReadonlyArray<string>): string => resolve("/", parts.join("/"))
