/**
 * A tool's structuredContent judged against the outputSchema the server listed for it, as the SDK's
 * `Client.callTool` does (with the SDK's own JSON Schema validator): a result that breaks the schema, or has none
 * though one is declared, is not a success. It comes back as an error that says why, its blocks kept (the model may
 * still use the text), so nobody builds on data the server promised in another shape.
 */
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import type { McpContent, McpToolInfo } from "../../domain/mcp/McpFormat.js"

type Validation = typeof import("@modelcontextprotocol/sdk/validation/ajv")

/** Validators by tool name, for the tools that declare an output schema. */
export type Validators = ReadonlyMap<string, JsonSchemaValidator<unknown>>

export const validators = (validation: Validation, tools: ReadonlyArray<McpToolInfo>): Validators => {
  const ajv = new validation.AjvJsonSchemaValidator()
  const out = new Map<string, JsonSchemaValidator<unknown>>()
  for (const t of tools) {
    if (typeof t.outputSchema !== "object" || t.outputSchema === null) continue
    try {
      out.set(t.name, ajv.getValidator(t.outputSchema as JsonSchemaType))
    } catch (e) {
      // A schema the validator cannot compile: every result of that tool is said to be unchecked, never trusted.
      const why = e instanceof Error ? e.message : String(e)
      out.set(t.name, () => ({ valid: false, data: undefined, errorMessage: `its output schema cannot be compiled (${why})` }))
    }
  }
  return out
}

/** `content` as returned, or as an error saying how it breaks the tool's declared output schema. */
export const check = (checks: Validators, server: string, tool: string, content: McpContent): McpContent => {
  const validate = checks.get(tool)
  if (validate === undefined || content.isError) return content
  const structured = content.blocks.find((b) => b._tag === "Structured")
  const why =
    structured === undefined
      ? "it declares an output schema but returned no structuredContent"
      : (() => {
          const r = validate(structured.value)
          return r.valid ? undefined : `its structuredContent does not match its output schema: ${r.errorMessage ?? "invalid"}`
        })()
  if (why === undefined) return content
  return { isError: true, blocks: [{ _tag: "Text", text: `minicode: the result of ${server}.${tool} is not valid: ${why}` }, ...content.blocks] }
}
