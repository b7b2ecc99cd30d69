/**
 * Protected names that were symlinks in the history. A commit that held `.env -> env/development` made
 * `env/development` a secret's content at that revision, even after `git rm .env`: the working tree's scan no
 * longer sees the link, so the history walk finds these links itself and treats their targets (a folder target:
 * everything under it) as secret paths at every revision. Pure: the caller reads the link blobs' content.
 */
import { unquote } from "./GitOutput.js"
import * as P from "../jail/PosixPath.js"

export interface Link {
  readonly path: string
  readonly id: string
}

const symlinkMode = "120000"

/**
 * The symlinks at paths `isSecret` accepts, from `git log --raw --no-abbrev --format=` lines (`:<modes> <ids>
 * <status>\t<path>`, one mode and one id per parent and one for the result) and `git ls-files --stage` records.
 */
export const links = (logRaw: string, stage: string, isSecret: (path: string) => boolean): ReadonlyArray<Link> => {
  const out = new Map<string, Link>()
  for (const l of logRaw.split("\n")) {
    const m = /^:+((?:[0-7]{6} )+)((?:[0-9a-f]{40,64} )+)[A-Z]+\d*\t(.+)$/.exec(l)
    if (m === null) continue
    const modes = (m[1] ?? "").trim().split(" ")
    const ids = (m[2] ?? "").trim().split(" ")
    const path = unquote(m[3] ?? "")
    modes.forEach((mode, i) => {
      const id = ids[i] ?? ""
      if (mode === symlinkMode && !/^0+$/.test(id) && isSecret(path)) out.set(`${id}\0${path}`, { path, id })
    })
  }
  for (const record of stage.split("\0")) {
    const m = /^(\d+) ([0-9a-f]+) \d\t(.+)$/s.exec(record)
    if (m !== null && m[1] === symlinkMode && isSecret(m[3] ?? "")) out.set(`${m[2]}\0${m[3]}`, { path: m[3] ?? "", id: m[2] ?? "" })
  }
  return [...out.values()]
}

/**
 * Where a link at `linkPath` (relative to the repository's top `top`, an absolute path) pointing at `target` leads,
 * relative to the top; undefined when it leads out of the repository (the jail's business, not history's).
 */
export const target = (top: string, linkPath: string, target: string): string | undefined => {
  if (target === "" || target.includes("\0")) return undefined
  const abs = P.resolve(P.dirname(P.resolve(top, linkPath)), target)
  if (abs === top || !P.isInside(top, abs)) return undefined
  return P.relative(top, abs)
}

/** `isSecret`, widened to the link targets: a target and everything under it. */
export const widen = (isSecret: (path: string) => boolean, targets: ReadonlySet<string>): ((path: string) => boolean) =>
  targets.size === 0 ? isSecret : (path) => isSecret(path) || [...targets].some((t) => path === t || path.startsWith(`${t}/`))
