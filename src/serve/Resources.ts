/**
 * `mcp serve`'s resources: the workspace's README and its repo map. Each read goes through the chain as the tool
 * call that gives it (`read_file`, `repo_map`), so the jail, the scopes and the secret rules apply as to any call.
 */
import { Effect, Schema } from "effect"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { Outcome } from "./Protocol.js"

export const repoMapUri = "minicode://repo-map"
export const workspacePrefix = "minicode://workspace/"

const readmes = ["README.md", "README", "README.txt", "readme.md", "Readme.md", "README.rst"]

export interface Resource {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: string
}

export interface ResourceRead {
  readonly uri: string
  readonly mimeType: string
  readonly text: string
}

/** A resource that cannot be read: JSON-RPC -32002 ("resource not found") or the refusal's text. */
export class ResourceFailed extends Schema.TaggedError<ResourceFailed>()("ResourceFailed", { code: Schema.Number, reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

const notFound = -32002

/** read_file's `cat -n` numbering taken off: a resource is the file's text. */
export const unnumber = (text: string) => text.replace(/^ {0,6}\d+\t/gm, "")

const textOf = (outcome: Outcome, uri: string): Effect.Effect<string, ResourceFailed> =>
  outcome._tag === "RpcError"
    ? Effect.fail(new ResourceFailed({ code: outcome.code, reason: outcome.message }))
    : outcome.result.isError
      ? Effect.fail(new ResourceFailed({ code: notFound, reason: `${uri}: ${outcome.result.text}` }))
      : Effect.succeed(outcome.result.text)

/** The template any workspace file is read by (`resources/templates/list`); its `path` is completed (`completePath`). */
export const fileTemplate = {
  uriTemplate: `${workspacePrefix}{path}`,
  name: "workspace-file",
  title: "Workspace file",
  description: "Any file of the workspace read_file would read, by its workspace-relative path",
  mimeType: "text/plain"
} as const

/** MCP's cap on completion values per answer. */
export const maxCompletions = 100

export interface Completion {
  readonly values: ReadonlyArray<string>
  readonly total: number
  readonly hasMore: boolean
}

/** Values starting with `prefix`, capped as MCP wants. */
export const completed = (all: ReadonlyArray<string>): Completion => ({
  values: all.slice(0, maxCompletions),
  total: all.length,
  hasMore: all.length > maxCompletions
})

const entriesOf = (outcome: Outcome): ReadonlyArray<{ readonly name: string; readonly kind: string }> => {
  const entries = outcome._tag === "Result" && !outcome.result.isError && Array.isArray(outcome.structured?.["entries"]) ? outcome.structured["entries"] : []
  return entries.flatMap((e: unknown) =>
    typeof e === "object" && e !== null && "name" in e && typeof e.name === "string" && "kind" in e && typeof e.kind === "string" ? [{ name: e.name, kind: e.kind }] : []
  )
}

/**
 * The workspace paths that complete `typed` (the template's `path` so far): its folder listed through the chain
 * (list_dir: the jail and the secret rules decide what is there), the names that start with the rest, folders with a
 * trailing `/` so the next completion goes inside; never a name the jail refuses to read (`.env`: a dead end). A folder the jail refuses, or none, completes to nothing.
 */
export const completePath = (run: (name: string, args: unknown) => Effect.Effect<Outcome>, root: string, typed: string): Effect.Effect<Completion> => {
  const slash = typed.lastIndexOf("/")
  const folder = slash < 0 ? "" : typed.slice(0, slash + 1)
  const rest = slash < 0 ? typed : typed.slice(slash + 1)
  if (folder.startsWith("/") || folder.split("/").includes("..")) return Effect.succeed(completed([]))
  return Effect.map(run("list_dir", { path: folder === "" ? "." : folder }), (outcome) =>
    completed(
      entriesOf(outcome)
        .filter((e) => e.name.startsWith(rest) && Jail.protectedName(P.join(root, folder, e.name), root) === undefined)
        .map((e) => `${folder}${e.name}${e.kind === "directory" ? "/" : ""}`)
    )
  )
}

/** The resources to list: the README that exists (found by list_dir, through the chain) and the repo map. */
export const list = (read: (name: string, args: unknown) => Effect.Effect<Outcome>): Effect.Effect<ReadonlyArray<Resource>> =>
  Effect.map(read("list_dir", { path: "." }), (outcome) => {
    const entries = outcome._tag === "Result" && !outcome.result.isError && Array.isArray(outcome.structured?.["entries"]) ? outcome.structured["entries"] : []
    const names = new Set(entries.flatMap((e: unknown) => (typeof e === "object" && e !== null && "name" in e && typeof e.name === "string" ? [e.name] : [])))
    const readme = readmes.find((r) => names.has(r))
    const map: Resource = {
      uri: repoMapUri,
      name: "repo-map",
      title: "Repository map",
      description: "The workspace's files with their top-level symbols (repo_map)",
      mimeType: "text/plain"
    }
    return readme === undefined
      ? [map]
      : [{ uri: `${workspacePrefix}${readme}`, name: readme, title: "Workspace README", description: "The workspace's README", mimeType: readme.endsWith(".md") ? "text/markdown" : "text/plain" }, map]
  })

/** One resource's text: the repo map, or a workspace file (any file the jail lets read_file read). */
export const read = (
  run: (name: string, args: unknown) => Effect.Effect<Outcome>,
  uri: string
): Effect.Effect<ResourceRead, ResourceFailed> => {
  if (uri === repoMapUri) return Effect.map(Effect.flatMap(run("repo_map", {}), (o) => textOf(o, uri)), (text) => ({ uri, mimeType: "text/plain", text }))
  if (uri.startsWith(workspacePrefix) && uri.length > workspacePrefix.length) {
    let path: string
    try {
      path = decodeURIComponent(uri.slice(workspacePrefix.length))
    } catch {
      return Effect.fail(new ResourceFailed({ code: -32602, reason: `${uri.slice(0, 120)} is not a valid URI` }))
    }
    return Effect.map(Effect.flatMap(run("read_file", { path }), (o) => textOf(o, uri)), (text) => ({
      uri,
      mimeType: path.endsWith(".md") ? "text/markdown" : "text/plain",
      text: unnumber(text)
    }))
  }
  return Effect.fail(new ResourceFailed({ code: notFound, reason: `unknown resource ${uri.slice(0, 120)}` }))
}
