/**
 * What a language server's answer is worth: a diagnostics report that says whether the server had settled (never
 * "no problems" when it was still loading), the errors it found in files that depend on the edited one, and the
 * "the project is still loading" marker for position requests answered before the project was loaded. Pure.
 */
import { Schema } from "effect"
import * as Lsp from "./Lsp.js"

type Diagnostic = Lsp.Diagnostic

export interface Related {
  readonly uri: string
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

export interface DiagnosticsReport {
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Whole seconds waited, when the deadline passed with the server still loading (the report may be partial). */
  readonly incompleteAfter?: number | undefined
  /** Errors the server reported in other files (dependents of the edited one). */
  readonly related?: ReadonlyArray<Related> | undefined
}

/** A position request's result, and whole seconds waited when the project was still loading at the deadline. */
export interface Answer<A> {
  readonly result: A
  readonly loadingSeconds?: number | undefined
}

export const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000))

export const incompleteNote = (s: number) => `diagnostics may be incomplete: the server was still loading (${s} s)`
export const loadingNote = (s: number) => `[the project is still loading (${s} s): this answer may be incomplete; ask again shortly]`

/** How many related files and lines a report shows. */
export const relatedLimits = { files: 10, perFile: 5 }

/**
 * The report as text: the edited file's diagnostics (`no problems` only when the server settled), then the errors
 * in other files.
 */
export const formatReport = (
  where: Lsp.Where,
  shown: string,
  report: DiagnosticsReport,
  max: number = Lsp.limits.diagnostics
): { readonly text: string; readonly truncated: boolean } => {
  const own = Lsp.formatDiagnostics(shown, report.diagnostics, max)
  let text = own.text
  if (report.incompleteAfter !== undefined) {
    const [, ...lines] = own.text.split("\n")
    const found = report.diagnostics.length === 0 ? "" : ` (so far: ${Lsp.diagnosticsSummary(report.diagnostics)})`
    text = [`${shown}: ${incompleteNote(report.incompleteAfter)}${found}`, ...lines].join("\n")
  }
  const others = (report.related ?? [])
    .map((r) => ({ shown: Lsp.shownPath(where, r.uri).text, errors: r.diagnostics.filter((d) => (d.severity ?? 1) === 1) }))
    .filter((r) => r.errors.length > 0 && r.shown !== shown)
  if (others.length === 0) return { text, truncated: own.truncated }
  const shownFiles = others.slice(0, relatedLimits.files)
  const lines = shownFiles.flatMap((r) => Lsp.formatDiagnostics(r.shown, r.errors, relatedLimits.perFile).text.split("\n"))
  const more = others.length > shownFiles.length ? [`[truncated: ${others.length - shownFiles.length} more files with errors]`] : []
  return { text: [text, `errors in files that depend on it:`, ...lines, ...more].join("\n"), truncated: own.truncated || more.length > 0 }
}

/** One diagnostic as data (1-based positions), for a structured result. */
export const diagnosticData = (d: Diagnostic) => ({
  line: d.range.start.line + 1,
  column: d.range.start.character + 1,
  endLine: d.range.end.line + 1,
  endColumn: d.range.end.character + 1,
  severity: Lsp.severityOf(d),
  code: d.code ?? null,
  source: d.source ?? null,
  message: d.message
})

/** The report as data: the same diagnostics as `formatReport` (sorted), the related files' errors, complete or not. */
export const reportData = (where: Lsp.Where, shown: string, report: DiagnosticsReport) => ({
  path: shown,
  own: Lsp.sortDiagnostics(report.diagnostics).map(diagnosticData),
  complete: report.incompleteAfter === undefined,
  related: (report.related ?? [])
    .map((r) => ({ path: Lsp.shownPath(where, r.uri).text, diagnostics: r.diagnostics.filter((d) => (d.severity ?? 1) === 1).map(diagnosticData) }))
    .filter((r) => r.diagnostics.length > 0 && r.path !== shown)
})

// ---------------------------------------------------------------------------------------------------------------
// tsserver's own diagnostics (typescript-language-server's `typescript.tsserverRequest`): 1-based line and offset.

const TsLocation = Schema.Struct({ line: Schema.Number, offset: Schema.Number })
const TsDiagnostic = Schema.Struct({
  start: TsLocation,
  end: TsLocation,
  text: Schema.String,
  code: Schema.optional(Schema.Number),
  category: Schema.optional(Schema.String),
  source: Schema.optional(Schema.String)
})
const severityOf: Readonly<Record<string, number>> = { error: 1, warning: 2, message: 3, suggestion: 4 }

/** A `semanticDiagnosticsSync` / `syntacticDiagnosticsSync` reply (the whole tsserver response, or its body). */
export const TsDiagnostics = Schema.transform(
  Schema.Union(Schema.Struct({ body: Schema.optional(Schema.Array(TsDiagnostic)) }), Schema.Array(TsDiagnostic), Schema.Null),
  Schema.Array(Lsp.Diagnostic),
  {
    strict: true,
    decode: (reply) => {
      const items = reply === null ? [] : Array.isArray(reply) ? reply : "body" in reply ? (reply.body ?? []) : []
      return items.map((d) => ({
        range: {
          start: { line: d.start.line - 1, character: d.start.offset - 1 },
          end: { line: d.end.line - 1, character: d.end.offset - 1 }
        },
        severity: severityOf[d.category ?? "error"] ?? 1,
        ...(d.code === undefined ? {} : { code: d.code }),
        source: d.source ?? "typescript",
        message: d.text
      }))
    },
    encode: () => []
  }
)

/** A `fileReferences` reply: the files that import the one asked about. */
export const TsFileReferences = Schema.transform(
  Schema.Struct({ body: Schema.optional(Schema.Struct({ refs: Schema.Array(Schema.Struct({ file: Schema.String })) })) }),
  Schema.Array(Schema.String),
  { strict: true, decode: (r) => [...new Set((r.body?.refs ?? []).map((x) => x.file))], encode: () => ({}) }
)

/** A pull reply (`textDocument/diagnostic`): its items, and the related documents' full reports. */
const FullReport = Schema.Struct({ kind: Schema.String, items: Schema.optional(Schema.Array(Lsp.Diagnostic)) })
export const PullReport = Schema.Struct({
  kind: Schema.String,
  items: Schema.optional(Schema.Array(Lsp.Diagnostic)),
  relatedDocuments: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: FullReport })))
})
export type PullReport = typeof PullReport.Type

/** A `workspace/diagnostic` reply: a report per document (unchanged ones carry no items). */
export const WorkspacePullReport = Schema.Struct({
  items: Schema.Array(Schema.Struct({ uri: Schema.String, kind: Schema.String, items: Schema.optional(Schema.Array(Lsp.Diagnostic)) }))
})
export type WorkspacePullReport = typeof WorkspacePullReport.Type

/** The documents other than `uri` with errors in a workspace report, at most `max`. */
export const workspaceErrors = (r: WorkspacePullReport, uri: string, max: number): ReadonlyArray<Related> =>
  r.items
    .filter((i) => i.uri !== uri && i.kind === "full" && (i.items ?? []).some((d) => d.severity === 1))
    .slice(0, max)
    .map((i) => ({ uri: i.uri, diagnostics: i.items ?? [] }))

export const relatedOf = (r: PullReport): ReadonlyArray<Related> =>
  Object.entries(r.relatedDocuments ?? {}).flatMap(([uri, rep]) => (rep.kind === "full" ? [{ uri, diagnostics: rep.items ?? [] }] : []))
