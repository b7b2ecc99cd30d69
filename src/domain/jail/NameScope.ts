/**
 * The jail's name rules (Jail.ts: `protectedName`) for many names of one directory, and for the folders below it
 * built one from another: what `secretSegments` found in a directory's path is carried to its names and its
 * folders, so a path's segments are not read again for each (rg names files in thousands of folders). Same answers
 * as `Jail.protectedName` on the whole path (test/domain/jail/Jail.test.ts).
 */
import { mostReadings } from "./CopyNames.js"
import {
  copiesOf,
  envTemplates,
  fileSecret,
  isDotGit,
  namedFolderReason,
  protectedName,
  scopedSegments,
  secretDirs,
  secretPairFiles,
  systemSecrets,
  wholePathSecret
} from "./Jail.js"
import * as P from "./PosixPath.js"
import { isCode } from "./SourceNames.js"

/**
 * `protectedName` for the names of one directory (grep's candidates): the directory's segments are split and
 * lower-cased once, each name then judged with them. Same answers as `protectedName(dir + "/" + name, root)`.
 */
export const protectedNameIn = (dir: string, root?: string) => {
  const scope = nameScope(dir, root)
  return (name: string): ReturnType<typeof protectedName> => judgeIn(scope, name)
}

/**
 * What `secretSegments` found in a directory's path, for judging its names (`judgeIn`) and making its folders'
 * scopes (`childOf`) without reading the path again. Plain data: PathJudge keeps one per folder rg names (10,700
 * on the bench tree for one regex), so no closure or array is made per folder unless needed.
 */
export interface NameScope {
  readonly dir: string
  readonly root: string | undefined
  /** False outside the root: the segments are the absolute path's, and a folder below may be scoped. */
  readonly incremental: boolean
  /** The last segment, lower-cased (undefined: no segment). */
  readonly last: string | undefined
  /** Its readings as a copy of another name, when there are others than itself. */
  readonly lastCopies: ReadonlyArray<string> | undefined
  /** What `secretSegments` found at the folders before the last (it does not depend on what follows them). */
  readonly before: string | undefined
  /** The last folder's own findings, before and after its pair check with the name. */
  readonly lastPre: string | undefined
  readonly lastPost: string | undefined
  /** The first folder named like a secret file (`credentials/`): what it finds for a name that is not code. */
  readonly named: string | undefined
  readonly state: boolean
  /** A `.git` segment: its rules look at what follows it, so each name is judged on the whole path. */
  readonly dotGit: boolean
  /** Whether a name here can be one of `systemSecrets` or a process's environ (`wholePathSecret`). */
  readonly wholeMaybe: boolean
}

/** Whether `/etc/shadow` and the like (`wholePathSecret`) can be a name below `prefix` (a folder's path and a slash). */
const systemSecretBelow = (prefix: string): boolean => {
  if (prefix.startsWith("/proc/")) return true
  for (const s of systemSecrets) if (s.startsWith(prefix)) return true
  return false
}

/** `secretSegments`' pair check: `seg/next` (`.docker/config.json`), with either read as a copy. */
const pairReason = (seg: string, copies: ReadonlyArray<string>, next: string, nextCopies: ReadonlyArray<string>): string | undefined => {
  for (const d of copies) {
    const pairFiles = secretPairFiles.get(d)
    if (pairFiles !== undefined && nextCopies.some((n) => pairFiles.has(n))) return `${seg}/${next} holds credentials`
  }
  return undefined
}

/** ...and after it: a folder named like an env file. */
const folderPost = (seg: string): string | undefined =>
  (seg === ".env" || seg.startsWith(".env.")) && !envTemplates.has(seg) ? `${seg} holds environment secrets` : undefined

/** What `secretSegments` finds at folder segment `seg` (not the path's last) before its pair check. */
const folderPre = (seg: string, copies: ReadonlyArray<string>): string | undefined => {
  if (copies.length > mostReadings) return `${seg} has too many readings as a copy of another name to judge`
  const d = copies.find((c) => secretDirs.has(c))
  return d === undefined ? undefined : d === seg ? `${seg}/ holds credentials` : `${seg}/ is a copy of ${d}/, which holds credentials`
}

const scopeOf = (
  dir: string,
  root: string | undefined,
  incremental: boolean,
  last: string | undefined,
  copies: ReadonlyArray<string>,
  before: string | undefined,
  named: string | undefined,
  state: boolean,
  dotGit: boolean
): NameScope => {
  const lowerDir = dir.toLowerCase()
  return {
    dir,
    root,
    incremental,
    last,
    lastCopies: copies.length === 1 && copies[0] === last ? undefined : copies,
    before,
    lastPre: last === undefined ? undefined : folderPre(last, copies),
    lastPost: last === undefined ? undefined : folderPost(last),
    named,
    state,
    dotGit,
    // eslint-disable-next-line no-control-regex
    wholeMaybe: /[^\x00-\x7f]/.test(lowerDir) || systemSecretBelow(dir === "/" ? "/" : `${lowerDir}/`)
  }
}

/**
 * A directory's scope: `secretSegments` over a path is what it found over the folders above (which, with no `.git`
 * among them, does not depend on the name judged), then the last folder's checks and the name's own. rg names files
 * in thousands of folders; judging each from scratch split and read every segment of its path again. Same answers
 * as `protectedName(dir + "/" + name, root)` (test/domain/jail/Jail.test.ts builds scopes folder by folder).
 */
export const nameScope = (dir: string, root?: string): NameScope => {
  const segs = scopedSegments(dir, root)
  let before: string | undefined
  let named: string | undefined
  let lastCopies: ReadonlyArray<string> = []
  let state = false
  let dotGit = false
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? ""
    const copies = copiesOf(seg, false)
    if (i > 0 && before === undefined) {
      const up = segs[i - 1] ?? ""
      before = folderPre(up, lastCopies) ?? pairReason(up, lastCopies, seg, copies) ?? folderPost(up)
    }
    named ??= namedFolder(seg)
    state ||= seg === ".minicode" || (seg === "minicode" && segs[i - 1] === ".config")
    dotGit ||= isDotGit(seg)
    lastCopies = copies
  }
  return scopeOf(dir, root, root === undefined || P.isInside(root, dir), segs[segs.length - 1], lastCopies, before, named, state, dotGit)
}

/**
 * A lower-cased name's own findings, the same in whatever folder: its readings as a copy of another name
 * (`copiesOf`), and as a file, what `nameReason` finds in them. rg names many files under few names (12,205 files
 * under 400 names for the bench's regex): reading each name's copies again was most of judging it. Bounded: a tree
 * of names all different clears it now and then rather than grow it.
 */
interface Findings {
  readonly copies: ReadonlyArray<string>
  /** Source code by its name (SourceNames.isCode): no folder named like a secret file makes it one. */
  readonly code: boolean
  readonly reason: string | undefined
}
const memoSize = 4096
const asFile = new Map<string, Findings>()
const asFolder = new Map<string, ReadonlyArray<string>>()
const fileFindings = (n: string): Findings => {
  let f = asFile.get(n)
  if (f === undefined) {
    const copies = copiesOf(n, true)
    const code = isCode(copies)
    f = { copies, code, reason: nameReason(n, copies, code) }
    if (asFile.size >= memoSize) asFile.clear()
    asFile.set(n, f)
  }
  return f
}
const asNamed = new Map<string, string | null>()
/** `Jail.namedFolderReason`, remembered per name as `asFolder` is. */
const namedFolder = (n: string): string | undefined => {
  let r = asNamed.get(n)
  if (r === undefined) {
    r = namedFolderReason(n) ?? null
    if (asNamed.size >= memoSize) asNamed.clear()
    asNamed.set(n, r)
  }
  return r ?? undefined
}
const folderCopies = (n: string): ReadonlyArray<string> => {
  let c = asFolder.get(n)
  if (c === undefined) {
    c = copiesOf(n, false)
    if (asFolder.size >= memoSize) asFolder.clear()
    asFolder.set(n, c)
  }
  return c
}

const joinName = (scope: NameScope, name: string) => (scope.dir === "/" ? `/${name}` : `${scope.dir}/${name}`)

/** What `secretSegments` finds at the scope's last folder once `n` (read as `copies`) follows it. */
const atLast = (scope: NameScope, n: string, copies: ReadonlyArray<string>): string | undefined => {
  const last = scope.last
  if (last === undefined) return undefined
  if (scope.lastPre !== undefined) return scope.lastPre
  if (scope.lastCopies !== undefined) return pairReason(last, scope.lastCopies, n, copies) ?? scope.lastPost
  const pairFiles = secretPairFiles.get(last)
  return pairFiles !== undefined && copies.some((c) => pairFiles.has(c)) ? `${last}/${n} holds credentials` : scope.lastPost
}

/** `protectedName(scope.dir + "/" + name, scope.root)`. */
export const judgeIn = (scope: NameScope, name: string): ReturnType<typeof protectedName> => {
  const n = name.toLowerCase()
  if (scope.dotGit || name.includes("/") || n === "" || n === "." || n === "..") return protectedName(joinName(scope, name), scope.root)
  const last = scope.last
  if (scope.state || n === ".minicode" || (last === ".config" && n === "minicode")) return { kind: "state" }
  const whole = scope.wholeMaybe ? wholePathSecret(joinName(scope, name)) : undefined
  if (whole !== undefined) return { kind: "secret", reason: whole }
  const own = fileFindings(n)
  const reason = scope.before ?? atLast(scope, n, own.copies) ?? own.reason ?? (own.code ? undefined : scope.named)
  return reason === undefined ? undefined : { kind: "secret", reason }
}

/** The scope of folder `name` in `scope`: the answers of `nameScope(scope.dir + "/" + name, scope.root)`. */
export const childOf = (scope: NameScope, name: string): NameScope => {
  const n = name.toLowerCase()
  if (!scope.incremental || scope.dotGit || name.includes("/") || n === "" || n === "." || n === "..") return nameScope(joinName(scope, name), scope.root)
  const copies = folderCopies(n)
  const last = scope.last
  return scopeOf(
    joinName(scope, name),
    scope.root,
    true,
    n,
    copies,
    scope.before ?? atLast(scope, n, copies),
    scope.named ?? namedFolder(n),
    scope.state || n === ".minicode" || (last === ".config" && n === "minicode"),
    isDotGit(n)
  )
}

/** `secretSegments` at the path's last segment (the name), with its readings as a copy. */
const nameReason = (seg: string, copies: ReadonlyArray<string>, code: boolean): string | undefined => {
  if (copies.length > mostReadings) return `${seg} has too many readings as a copy of another name to judge`
  const dir = copies.find((d) => secretDirs.has(d))
  if (dir !== undefined) return dir === seg ? `${seg}/ holds credentials` : `${seg}/ is a copy of ${dir}/, which holds credentials`
  for (const name of copies) {
    const why = fileSecret(name, code)
    if (why !== undefined) return name === seg ? why : `${seg} is a copy of a secret file: ${why}`
  }
  return undefined
}
