/**
 * The files that import an edited one, for servers that publish diagnostics for open files only (pyright): they are
 * opened and checked after a write, so a rename that breaks a dependent module shows in the edit's report. The
 * import resolution is the repo map's (`RepoMap.importsOf`, `Imports.resolveImports`). Pure.
 */
import * as Imports from "../repomap/Imports.js"
import * as RepoMap from "../repomap/RepoMap.js"

/**
 * Languages whose servers check only open files: their dependents are opened here. TypeScript's are checked by
 * tsserver, Go's published by gopls; a server offering `workspace/diagnostic` is asked that.
 */
export const byOpening: ReadonlySet<RepoMap.Language> = new Set(["py"])

export const limits = {
  /** Source files of that language read to find importers; past it, dependents are not checked (and the report says so). */
  files: 2_000,
  /** Dependents opened and checked after one write. */
  checked: 10
}

/** Whether an edit of `path` has its dependents found and opened here. */
export const checkedByOpening = (path: string): boolean => {
  const language = RepoMap.languageOf(path)
  return language !== undefined && byOpening.has(language)
}

/** The files (workspace-relative, as in `files`) whose imports resolve to `edited`, in path order. */
export const importersOf = (edited: string, files: ReadonlyMap<string, string>): ReadonlyArray<string> => {
  const index = Imports.indexFiles(files.keys())
  const found: Array<string> = []
  for (const [path, text] of files) {
    if (path === edited) continue
    const language = RepoMap.languageOf(path)
    if (language === undefined) continue
    if (RepoMap.importsOf(language, text).some((spec) => Imports.resolveImports(path, spec, index).includes(edited))) found.push(path)
  }
  return found.sort()
}

/** What the report says when dependents were not (all) checked; undefined when every one was. */
export const notCheckedNote = (fact: { readonly tooManyFiles?: number; readonly importers?: number }): string | undefined =>
  fact.tooManyFiles !== undefined
    ? `[dependents not checked: the workspace has ${fact.tooManyFiles} files of this language, over the ${limits.files} read to find importers]`
    : fact.importers !== undefined && fact.importers > limits.checked
      ? `[${fact.importers - limits.checked} more files that import it were not checked (${limits.checked} at most per write)]`
      : undefined
