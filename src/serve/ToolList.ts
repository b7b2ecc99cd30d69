/**
 * What `tools/list` shows of `mcp serve`'s tools: the name, a title, the description, the input schema (from the
 * catalog's Schema: one source of truth) and annotations computed from this run's effective settings.
 */
import { JSONSchema, Schema } from "effect"
import * as Annotations from "../domain/mcp/McpAnnotations.js"
import * as OutputSchemas from "../domain/mcp/OutputSchemas.js"
import * as PlainSchema from "../domain/mcp/PlainSchema.js"
import type * as Scopes from "../domain/mcp/McpScopes.js"
import * as Tools from "../domain/core/Tools.js"

export interface ToolDescriptor {
  readonly name: Tools.ToolName
  readonly title: string
  readonly description: string
  readonly inputSchema: { readonly type: "object" } & Readonly<Record<string, unknown>>
  readonly annotations: Annotations.Annotations
  /** The shape of its `structuredContent`, for a tool that gives one. */
  readonly outputSchema?: { readonly type: "object" } & Readonly<Record<string, unknown>>
}

const isObjectSchema = (u: object): u is { readonly type: "object" } & Readonly<Record<string, unknown>> =>
  "type" in u && u.type === "object"

/** A tool's input schema, plain and self-contained (see `PlainSchema`). */
export const inputSchemaOf = (name: Tools.ToolName): ToolDescriptor["inputSchema"] => {
  const schema = PlainSchema.plain(JSONSchema.make(Schema.make(Tools.Args[name].ast)))
  return isObjectSchema(schema) ? schema : { type: "object" as const, properties: {} }
}

/**
 * One tool as `tools/list` shows it under these settings; `more` is appended to its static description (what this
 * run knows, as sql_query's configured connections).
 */
export const describeTool = (name: Tools.ToolName, settings: Scopes.Settings, more?: string): ToolDescriptor => {
  const info = Tools.staticInfo(name)
  const inputSchema = inputSchemaOf(name)
  const outputSchema = OutputSchemas.outputSchemaOf(name)
  return {
    name,
    title: info.title,
    description: more === undefined || more === "" ? info.description : `${info.description}. ${more}`,
    inputSchema,
    annotations: Annotations.annotations(name, settings),
    ...(outputSchema === undefined ? {} : { outputSchema })
  }
}
