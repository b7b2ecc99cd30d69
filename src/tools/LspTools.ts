/**
 * The language tools (`lsp_diagnostics`, `lsp_definition`, `lsp_references`, `lsp_hover`, `lsp_implementation`,
 * `lsp_incoming_calls`, `lsp_outgoing_calls`, `lsp_symbols`, `lsp_workspace_symbols`) as an executor extension, and the post-write diagnostics hook (`Diagnostics`).
 * Gates ran before: the file asked about was jailed; it is read here through the FileSystem port with the identity
 * the jail saw and handed to the server as text. Locations come back workspace-relative with 1-based lines; a
 * location's source line is shown only when read_file would read that file (kernel/ReadJudge: a library's typings
 * outside the workspace, a secret and protected content under another name stay a bare location).
 */
import { Effect, Either, Option } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Jail from "../domain/jail/Jail.js"
import * as CallHierarchy from "../domain/lsp/CallHierarchy.js"
import * as Dependents from "../domain/lsp/Dependents.js"
import * as Lsp from "../domain/lsp/Lsp.js"
import * as RepoMap from "../domain/repomap/RepoMap.js"
import * as OutputSchemas from "../domain/mcp/OutputSchemas.js"
import * as Reports from "../domain/lsp/Reports.js"
import * as P from "../domain/jail/PosixPath.js"
import type { CallOf } from "../domain/core/Tools.js"
import { Diagnostics, type DiagnosticsShape } from "../ports/Diagnostics.js"
import { FileSystem } from "../ports/FileSystem.js"
import { ProtectedAliases } from "../ports/ProtectedAliases.js"
import { type LspDocument, LspTransport } from "../ports/LspTransport.js"
import { Session } from "../ports/Session.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Extension } from "../kernel/Executor.js"
import * as ReadJudge from "../kernel/ReadJudge.js"
import { walk } from "./Walk.js"

const decoder = new TextDecoder("utf-8")

export const limits = {
  /** Diagnostics appended to a write_file/edit_file result. */
  afterWrite: 20,
  documentBytes: 4 * 1024 * 1024,
  anchorWalkEntries: 50_000
}

type Where = { readonly line?: number | undefined; readonly character?: number | undefined; readonly symbol?: string | undefined }

export const make = Effect.gen(function* () {
  const lsp = yield* LspTransport
  const session = yield* Session
  const fs = yield* FileSystem
  const aliases = yield* ProtectedAliases
  const jail: Jail.JailContext = { root: session.root, ...(session.home === undefined ? {} : { home: session.home }), unrestricted: false }
  const shown = (abs: string) => Jail.display(session, abs)

  const read = (tool: string, path: string, expect?: Parameters<typeof fs.readFile>[1]) =>
    fs.readFile(path, expect).pipe(
      Effect.mapError((e) => new ToolFailed({ tool, reason: e.reason })),
      Effect.flatMap((bytes) =>
        bytes.byteLength > limits.documentBytes
          ? Effect.fail(new ToolFailed({ tool, reason: `${shown(path)} is ${bytes.byteLength} bytes, over the ${limits.documentBytes}-byte limit for language servers` }))
          : bytes.subarray(0, 8192).includes(0)
            ? Effect.fail(new ToolFailed({ tool, reason: `${shown(path)} is a binary file` }))
            : Effect.succeed(decoder.decode(bytes))
      )
    )

  /** The jailed file of this call, read as the jail saw it. */
  const documentOf = (inv: Invocation, tool: string) =>
    Effect.gen(function* () {
      const facts = inv.resolved["path"]
      if (facts === undefined) return yield* Effect.dieMessage("the jail did not resolve path")
      if (facts.kind === "missing") return yield* new ToolFailed({ tool, reason: `${shown(facts.lexical)} does not exist` })
      if (facts.kind !== "file") return yield* new ToolFailed({ tool, reason: `${shown(facts.lexical)} is not a file` })
      const text = yield* read(tool, facts.real, { dev: facts.dev, ino: facts.ino })
      const doc: LspDocument = { path: facts.real, text }
      return doc
    })

  const positionIn = (tool: string, doc: LspDocument, where: Where) =>
    Either.match(Lsp.locate(doc.text, where, Lsp.extensionOf(doc.path)), {
      onLeft: (reason) => Effect.fail(new ToolFailed({ tool, reason: `${shown(doc.path)}: ${reason}` })),
      onRight: Effect.succeed
    })

  /** Columns are shown in code points: a server's UTF-16 offsets are converted with the line's text. */
  const column = (lines: ReadonlyArray<string> | undefined, at: Lsp.ZeroPosition) => Lsp.codePointsOf(lines?.[at.line], at.character)
  const inCodePoints = (text: string, ds: ReadonlyArray<Lsp.Diagnostic>): ReadonlyArray<Lsp.Diagnostic> => {
    const lines = text.split("\n")
    const point = (p: Lsp.ZeroPosition) => ({ line: p.line, character: column(lines, p) })
    return ds.map((d) => ({ ...d, range: { start: point(d.range.start), end: point(d.range.end) } }))
  }

  const title = (doc: LspDocument, at: Lsp.ZeroPosition, what: string, where: Where) =>
    `${what} of ${where.symbol !== undefined && where.line === undefined ? `${where.symbol} (` : ""}${shown(doc.path)}:${at.line + 1}:${column(doc.text.split("\n"), at) + 1}${where.symbol !== undefined && where.line === undefined ? ")" : ""}`

  /**
   * Workspace-relative locations, each with its source line when read_file would read that file: the server names
   * any path it likes, and the line is read here, on the host, outside its sandbox.
   */
  const showLocations = (locations: ReadonlyArray<Lsp.Location>) =>
    Effect.gen(function* () {
      const texts = new Map<string, ReadonlyArray<string> | undefined>()
      const readable = ReadJudge.judge(fs, jail, aliases)
      const linesOf = (path: string) =>
        Effect.gen(function* () {
          if (texts.has(path)) return texts.get(path)
          const facts = yield* readable(path)
          const text = facts === undefined ? Option.none() : yield* read("lsp", facts.real, { dev: facts.dev, ino: facts.ino }).pipe(Effect.option)
          const lines = Option.isSome(text) ? text.value.split("\n") : undefined
          texts.set(path, lines)
          return lines
        })
      const unique = [...new Map(locations.map((l) => [`${l.uri}:${l.range.start.line}:${l.range.start.character}`, l])).values()]
      return yield* Effect.forEach(unique, (l) =>
        Effect.gen(function* () {
          const p = Lsp.shownPath(session, l.uri)
          const lines = p.inside && p.path !== undefined ? yield* linesOf(p.path) : undefined
          const located: Lsp.ShownLocation = {
            text: p.text,
            line: l.range.start.line,
            character: column(lines, l.range.start),
            snippet: lines?.[l.range.start.line]?.trim(),
            inside: p.inside
          }
          return located
        })
      )
    })

  /** The folders the workspace's project configurations include (tsconfig.json, jsconfig.json, pyrightconfig.json). */
  const projectPrefixes = Effect.forEach(["tsconfig.json", "jsconfig.json", "pyrightconfig.json"], (name) =>
    read("lsp_workspace_symbols", P.join(session.root, name)).pipe(
      Effect.map(Lsp.includedPrefixes),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
  ).pipe(Effect.map((all) => all.flat()))

  /**
   * One file per configured extension, so servers that only know open files' projects can answer: a file a
   * project configuration includes (never vitest.config.ts beside a tsconfig that includes only src), shallowest first.
   */
  const anchors = Effect.gen(function* () {
    const wanted = new Set(lsp.servers.flatMap((s) => s.extensions))
    const walked = yield* walk({ root: session.root, start: session.root, maxEntries: limits.anchorWalkEntries }).pipe(Effect.provideService(FileSystem, fs))
    const prefixes = yield* projectPrefixes
    const byExt = new Map<string, Array<string>>()
    for (const f of walked.files) {
      const ext = Lsp.extensionOf(f)
      if (!wanted.has(ext) || !Jail.checkLexical(jail, session.root, f, "read").ok) continue
      const list = byExt.get(ext)
      if (list === undefined) byExt.set(ext, [f])
      else list.push(f)
    }
    // Each is read on the host and handed to the server as text: only as read_file would read it (a protected
    // symlink's target, a hard link to a secret is never an anchor; the next best is taken, a few at most).
    const readable = ReadJudge.judge(fs, jail, aliases)
    const anchorOf = (files: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        let left = files
        for (let tries = 0; tries < 8; tries++) {
          const f = Lsp.pickAnchor(left, prefixes)
          if (f === undefined) return Option.none<LspDocument>()
          const facts = yield* readable(P.join(session.root, f))
          if (facts !== undefined) {
            return yield* read("lsp_workspace_symbols", facts.real, { dev: facts.dev, ino: facts.ino }).pipe(
              Effect.map((text): LspDocument => ({ path: facts.real, text })),
              Effect.option
            )
          }
          left = left.filter((g) => g !== f)
        }
        return Option.none<LspDocument>()
      })
    return yield* Effect.forEach([...byExt.values()], anchorOf).pipe(Effect.map((docs) => docs.flatMap((d) => (Option.isSome(d) ? [d.value] : []))))
  })

  const out = (r: { readonly text: string; readonly truncated: boolean }): ToolOutput => ({ text: r.text, truncated: r.truncated })
  /** An answer given while the project was still loading says so, first. */
  const answered = (loadingSeconds: number | undefined, r: { readonly text: string; readonly truncated: boolean }): ToolOutput =>
    out(loadingSeconds === undefined ? r : { text: `${Reports.loadingNote(loadingSeconds)}\n${r.text}`, truncated: r.truncated })

  const diagnosticsTool = (inv: Invocation) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, "lsp_diagnostics")
      const raw = yield* lsp.diagnostics(doc)
      const report = { ...raw, diagnostics: inCodePoints(doc.text, raw.diagnostics) }
      const data = Reports.reportData(session, shown(doc.path), report)
      return {
        ...out(Reports.formatReport(session, shown(doc.path), report)),
        structured: OutputSchemas.diagnosticsContent(data.path, data.own, data.complete, data.related)
      }
    })

  const definition = (inv: Invocation, call: CallOf<"lsp_definition">) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, call.tool)
      const at = yield* positionIn(call.tool, doc, call.args)
      const found = yield* lsp.definition(doc, at)
      const locations = yield* showLocations(found.result)
      return answered(found.loadingSeconds, Lsp.formatLocations(title(doc, at, "definition", call.args), locations, Lsp.limits.locations))
    })

  const references = (inv: Invocation, call: CallOf<"lsp_references">) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, call.tool)
      const at = yield* positionIn(call.tool, doc, call.args)
      const found = yield* lsp.references(doc, at, call.args.include_declaration === true)
      const locations = yield* showLocations(found.result)
      return answered(found.loadingSeconds, Lsp.formatLocations(title(doc, at, "references", call.args), locations, Lsp.limits.references))
    })

  const hover = (inv: Invocation, call: CallOf<"lsp_hover">) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, call.tool)
      const at = yield* positionIn(call.tool, doc, call.args)
      const found = yield* lsp.hover(doc, at)
      return answered(found.loadingSeconds, Lsp.formatHover(title(doc, at, "hover", call.args), found.result))
    })

  const implementation = (inv: Invocation, call: CallOf<"lsp_implementation">) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, call.tool)
      const at = yield* positionIn(call.tool, doc, call.args)
      const found = yield* lsp.implementation(doc, at)
      const locations = yield* showLocations(found.result)
      return answered(found.loadingSeconds, Lsp.formatLocations(title(doc, at, "implementations", call.args), locations, Lsp.limits.references))
    })

  /** Callers or callees of the function at the position, each call site with its line (read as read_file would). */
  const calls = (inv: Invocation, call: CallOf<"lsp_incoming_calls"> | CallOf<"lsp_outgoing_calls">) =>
    Effect.gen(function* () {
      const direction = call.tool === "lsp_incoming_calls" ? "incoming" : "outgoing"
      const doc = yield* documentOf(inv, call.tool)
      const at = yield* positionIn(call.tool, doc, call.args)
      const found = yield* lsp.callHierarchy(doc, at, direction)
      const shownCalls = yield* Effect.forEach(found.result.calls, (c) =>
        Effect.map(showLocations([{ uri: c.item.uri, range: c.item.selectionRange }, ...c.sites]), ([declared, ...sites]): CallHierarchy.ShownCall => ({
          name: c.item.name,
          kind: c.item.kind,
          detail: c.item.detail,
          at: declared ?? { text: c.item.uri, line: c.item.selectionRange.start.line, character: c.item.selectionRange.start.character, inside: false },
          sites
        }))
      )
      return answered(found.loadingSeconds, CallHierarchy.format(title(doc, at, `${direction} calls`, call.args), direction, found.result.items.length, shownCalls))
    })

  const symbols = (inv: Invocation, call: CallOf<"lsp_symbols">) =>
    Effect.gen(function* () {
      const doc = yield* documentOf(inv, "lsp_symbols")
      const found = yield* lsp.documentSymbols(doc)
      return out(Lsp.formatDocumentSymbols(shown(doc.path), call.args.all === true ? found : Lsp.outline(found)))
    })

  const workspaceSymbols = (call: CallOf<"lsp_workspace_symbols">) =>
    Effect.gen(function* () {
      const found = yield* lsp.workspaceSymbols(call.args.query, yield* anchors)
      return answered(found.loadingSeconds, Lsp.formatWorkspaceSymbols(session, call.args.query, found.result))
    })

  const extension: Extension = (inv) => {
    const call = inv.facts.call
    switch (call.tool) {
      case "lsp_diagnostics":
        return diagnosticsTool(inv)
      case "lsp_definition":
        return definition(inv, call)
      case "lsp_references":
        return references(inv, call)
      case "lsp_hover":
        return hover(inv, call)
      case "lsp_implementation":
        return implementation(inv, call)
      case "lsp_incoming_calls":
      case "lsp_outgoing_calls":
        return calls(inv, call)
      case "lsp_symbols":
        return symbols(inv, call)
      case "lsp_workspace_symbols":
        return workspaceSymbols(call)
      default:
        return undefined
    }
  }

  /**
   * For a server that checks open files only (pyright): the files that import the edited one (the repo map's import
   * resolution over the workspace's files of its language), opened and checked; what was not checked is said.
   */
  const dependents = (path: string) =>
    Effect.gen(function* () {
      const rel = P.relative(session.root, path)
      const language = RepoMap.languageOf(rel)
      const walked = yield* walk({ root: session.root, start: session.root, maxEntries: limits.anchorWalkEntries }).pipe(Effect.provideService(FileSystem, fs))
      const same = walked.files.filter((f) => RepoMap.languageOf(f) === language && Jail.checkLexical(jail, session.root, f, "read").ok)
      if (same.length > Dependents.limits.files) return { related: [], note: Dependents.notCheckedNote({ tooManyFiles: same.length }) }
      const texts = new Map<string, string>()
      for (const f of same) {
        const text = yield* read("lsp", P.join(session.root, f)).pipe(Effect.option)
        if (Option.isSome(text)) texts.set(f, text.value)
      }
      const importers = Dependents.importersOf(rel, texts)
      const readable = ReadJudge.judge(fs, jail, aliases)
      const related = yield* Effect.forEach(importers.slice(0, Dependents.limits.checked), (f) =>
        Effect.gen(function* () {
          const facts = yield* readable(P.join(session.root, f))
          const text = texts.get(f)
          if (facts === undefined || text === undefined) return []
          const report = yield* lsp.diagnostics({ path: facts.real, text })
          return [{ uri: Lsp.fileUri(facts.real), diagnostics: inCodePoints(text, report.diagnostics) }]
        }).pipe(Effect.orElseSucceed(() => []))
      )
      return { related: related.flat(), note: Dependents.notCheckedNote({ importers: importers.length }) }
    })

  const diagnostics: DiagnosticsShape = {
    afterWrite: (path) => {
      const server = lsp.serverFor(path)
      if (server === undefined) return Effect.succeed(undefined)
      return read("lsp", path).pipe(
        Effect.flatMap((text) =>
          Effect.map(lsp.diagnostics({ path, text }, { changed: true }), (report) => ({ ...report, diagnostics: inCodePoints(text, report.diagnostics) }))
        ),
        Effect.flatMap((report) =>
          !Dependents.checkedByOpening(path)
            ? Effect.succeed({ report, note: undefined as string | undefined })
            : Effect.map(dependents(path), (d) => ({ report: { ...report, related: [...(report.related ?? []), ...d.related] }, note: d.note }))
        ),
        Effect.map(({ report, note }) =>
          [`diagnostics from ${server.name} after this change:`, Reports.formatReport(session, shown(path), report, limits.afterWrite).text, ...(note === undefined ? [] : [note])].join("\n")
        ),
        // The write stands whatever the server does: a dead, hung or missing server is a note, never a failure.
        Effect.catchAll((e) => Effect.succeed(`[diagnostics unavailable: ${e._tag === "ToolFailed" ? `${e.reason} (${e.tool})` : e.message}]`))
      )
    }
  }

  return { extension, diagnostics: Diagnostics.of(diagnostics) }
})
