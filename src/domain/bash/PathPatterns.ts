/**
 * Paths in shell words: could a literal path or a glob pattern name a protected file (secrets, minicode's state,
 * shell start-up files, process environments)?
 */
import * as W from "./BashWords.js"
import * as P from "../jail/PosixPath.js"
import * as Jail from "../jail/Jail.js"

export const rcFiles = new Set([
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin",
  ".zlogout", ".inputrc", ".kshrc", ".cshrc", ".tcshrc", ".mkshrc", ".envrc", ".bash_aliases", "config.fish"
])

/** Disks and memory devices: writing them destroys data. */
export const deviceTarget = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|mapper\/|md\d|loop\d|dm-|sr\d|mem$|kmem$|port$)/
/** Devices a write to is harmless. */
export const harmlessDevices = /^\/dev\/(null|zero|random|urandom|stdout|stderr|stdin|tty|full|fd\/[0-2]|pts\/\d+)$/

export const samplePool = [
  ".ssh", ".aws", ".kube", ".gnupg", ".azure", ".docker", "config.json", ".git", "hooks", "config", "config.worktree",
  ".env", ".env.local", ".env.production", ".env.development", ".git-credentials", ".npmrc", ".netrc", "_netrc", ".pypirc",
  ".pgpass", "credentials.json", "credentials", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
  "secrets.json", "secrets.yaml", "secrets.yml", "secrets.env", "etc", "shadow", "gshadow", "sudoers", "master.passwd",
  "proc", "self", "1", "task", "environ", ".minicode", ".config", "minicode", "authorized_keys", "known_hosts",
  "x.pem", "x.key", "x.p12", "x.pfx", "x.jks", "x.keystore",
  ...rcFiles
]

export const keyExts = [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"]

export const regExpSpecial = /[\\^$.*+?()[\]{}|/]/

export const regExpSpecials = /[\\^$.*+?()[\]{}|/]/g

export const segmentRegExp = (seg: W.Field): RegExp => {
  let out = ""
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i]
    if (ch === undefined) continue
    if (ch.k === "unk" || ch.k === "sub") out += ".*"
    else if (W.isGlobActive(ch)) {
      if (ch.c === "*") out += i === 0 ? "(?!\\.).*" : ".*"
      else if (ch.c === "?") out += i === 0 ? "[^.]" : "."
      else {
        // a bracket expression: up to the closing ]
        let j = i + 1
        let cls = ""
        if (seg[j]?.c === "!" || seg[j]?.c === "^") {
          cls += "^"
          j++
        }
        if (seg[j]?.c === "]") {
          cls += "\\]"
          j++
        }
        while (j < seg.length && seg[j]?.c !== "]") {
          const c = seg[j]?.c ?? ""
          cls += c === "\\" ? "\\\\" : c
          j++
        }
        if (j >= seg.length) out += "\\["
        else {
          out += `[${cls}]`
          i = j
        }
      }
    } else out += regExpSpecial.test(ch.c) ? ch.c.replace(regExpSpecials, "\\$&") : ch.c
  }
  try {
    return new RegExp(`^${out}$`, "i")
  } catch {
    return /^.*$/
  }
}

/** Literal text before the first wildcard of a segment (for derived samples like `server.*` → `server.pem`). */
export const literalPrefix = (seg: W.Field): string => {
  let s = ""
  for (const ch of seg) {
    if (ch.k === "unk" || ch.k === "sub" || W.isGlobActive(ch)) break
    s += ch.c
  }
  return s
}

export const neutral = "\uE002"

/**
 * An ordinary name the pattern segment takes: its literal characters kept, each wildcard, class or unknown part
 * one neutral character (`*.go` -> `\uE002.go`), so a name's extension counts as it does for the jail (a file of
 * source code in `credentials/` is no secret: SourceNames); the neutral name alone when that does not match.
 */
export const ordinaryName = (seg: W.Field, re: RegExp): string => {
  let out = ""
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i]
    if (ch === undefined) continue
    if (ch.k === "unk" || ch.k === "sub" || (W.isGlobActive(ch) && ch.c !== "[")) out += neutral
    else if (W.isGlobActive(ch)) {
      let j = i + 1
      if (seg[j]?.c === "!" || seg[j]?.c === "^") j++
      if (seg[j]?.c === "]") j++
      while (j < seg.length && seg[j]?.c !== "]") j++
      if (j >= seg.length) out += "["
      else {
        out += neutral
        i = j
      }
    } else out += ch.c
  }
  return out !== "" && re.test(out) ? out : neutral
}

/** Candidate names a pattern segment could take: protected samples it matches, plus an ordinary name. */
export const segmentCandidates = (seg: W.Field): ReadonlyArray<string> => {
  const hasLiteral = seg.some((ch) => ch.k === "q" || ((ch.k === "src" || ch.k === "var") && !W.globChars.has(ch.c)))
  if (!hasLiteral) return [neutral, ""]
  const re = segmentRegExp(seg)
  const ordinary = ordinaryName(seg, re)
  const prefix = literalPrefix(seg)
  // `server.*` could be `server.pem`: a wildcard standing for an extension could be a key's
  const derived = W.hasGlob(seg) && prefix.endsWith(".") ? keyExts.map((e) => prefix + e.slice(1)) : []
  const out = [...samplePool, ...derived].filter((s) => s !== "" && re.test(s))
  return [ordinary, ...new Set(out)]
}

export interface PathJudgement {
  /** Lexically resolved absolute path when the field is fully literal. */
  readonly literal: string | undefined
  /** The literal folder before the first non-literal segment; undefined when the path starts with an unknown. */
  readonly base: string | undefined
  readonly unknown: boolean
  readonly sub: boolean
  readonly glob: boolean
  /** Why it is (or could be) protected, with the jail rule kind. */
  readonly protectedBy: { readonly kind: "secret" | "state" | "rc" | "environ"; readonly reason: string } | undefined
}

export const splitSegments = (field: W.Field): Array<W.Field> => {
  const segs: Array<Array<W.Ch>> = [[]]
  for (const ch of field) {
    if (ch.c === "/" && ch.k !== "unk" && ch.k !== "sub") segs.push([])
    else segs[segs.length - 1]?.push(ch)
  }
  return segs
}

export const protectedReason = (abs: string, root: string): PathJudgement["protectedBy"] => {
  if (/^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/i.test(abs)) return { kind: "environ", reason: `${abs} is a process environment` }
  const name = Jail.protectedName(abs, root)
  if (name?.kind === "state") return { kind: "state", reason: "minicode's own state (.minicode/) is not for tools" }
  if (name?.kind === "secret") return { kind: "secret", reason: name.reason }
  if (rcFiles.has(P.basename(abs).toLowerCase())) return { kind: "rc", reason: `${P.basename(abs)} is a shell start-up file` }
  return undefined
}

export const maxCandidates = 4096

export const judgePath = (field: W.Field, cwd: string, root: string): PathJudgement => {
  const unknown = W.hasUnknown(field)
  const sub = W.hasSub(field)
  const glob = W.hasGlob(field)
  const raw = W.text(field)
  if (!unknown && !sub && !glob) {
    const abs = P.resolve(cwd, raw)
    return { literal: abs, base: abs, unknown, sub, glob, protectedBy: protectedReason(abs, root) }
  }
  const startsUnknown = field[0]?.k === "unk"
  const absolute = field[0]?.c === "/" && field[0].k !== "unk"
  const segs = splitSegments(field).filter((s, i) => s.length > 0 || i === 0)
  // the literal folder before the first non-literal segment
  let baseSegs: Array<string> = []
  let firstPattern = segs.length
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? []
    if (!W.isLiteral(seg)) {
      firstPattern = i
      break
    }
    baseSegs.push(W.text(seg))
  }
  const base = startsUnknown ? undefined : P.resolve(absolute ? "/" : cwd, baseSegs.join("/"))
  // candidates: every combination of the pattern segments' candidate names
  let candidates: Array<string> = [startsUnknown ? "" : base ?? "/"]
  for (let i = firstPattern; i < segs.length; i++) {
    const seg = segs[i] ?? []
    const options = W.isLiteral(seg) ? [W.text(seg)] : segmentCandidates(seg)
    const next: Array<string> = []
    for (const c of candidates) for (const o of options) next.push(o === "" ? c : `${c}/${o}`)
    candidates = next
    if (candidates.length > maxCandidates) {
      return { literal: undefined, base, unknown, sub, glob, protectedBy: { kind: "secret", reason: `${raw} is too broad a pattern to judge` } }
    }
  }
  for (const c of candidates) {
    const abs = P.resolve("/", c)
    const why = protectedReason(abs, root)
    if (why !== undefined) return { literal: undefined, base, unknown, sub, glob, protectedBy: { ...why, reason: `${raw} could match a protected path: ${why.reason}` } }
  }
  baseSegs = []
  return { literal: undefined, base, unknown, sub, glob, protectedBy: undefined }
}

/** A field's text for a message: unknown parts as `$…`, paths below a folder as `…`. */
export const shownPath = (raw: string): string =>
  raw.includes("\uE000") || raw.includes("\uE001") ? raw.replace(/\uE000/g, "$…").replace(/\uE001/g, "…") : raw
