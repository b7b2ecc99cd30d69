/**
 * The SDK's result and listing types as minicode's MCP blocks and listings, nothing the model needs dropped:
 * structuredContent beside content, resource links with their description and mime type, annotations' audience,
 * tools' title, output schema, hints and task support. Only SDK types are imported here.
 */
import type { CallToolResult, ContentBlock, GetPromptResult, ReadResourceResult, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js"
import { base64Bytes, type Audience, type McpBlock, type McpContent, type McpToolInfo } from "../../domain/mcp/McpFormat.js"

type Contents = ReadResourceResult["contents"][number]

const audience = (a: { readonly audience?: ReadonlyArray<string> | undefined } | undefined): { readonly audience?: Audience } =>
  a?.audience === undefined || a.audience.length === 0 ? {} : { audience: [...a.audience] }

export const resourceBlock = (r: Contents, who: { readonly audience?: Audience } = {}): McpBlock =>
  "text" in r && typeof r.text === "string"
    ? { _tag: "Resource", uri: r.uri, text: r.text, ...who }
    : { _tag: "Binary", kind: "blob", mimeType: r.mimeType ?? "application/octet-stream", bytes: base64Bytes("blob" in r && typeof r.blob === "string" ? r.blob : ""), ...who }

export const contentBlock = (c: ContentBlock): McpBlock => {
  const who = audience(c.annotations)
  switch (c.type) {
    case "text":
      return { _tag: "Text", text: c.text, ...who }
    case "image":
    case "audio":
      return { _tag: "Binary", kind: c.type, mimeType: c.mimeType, bytes: base64Bytes(c.data), ...who }
    case "resource":
      return resourceBlock(c.resource, who)
    case "resource_link":
      return {
        _tag: "Link",
        uri: c.uri,
        name: c.name,
        ...(c.description === undefined ? {} : { description: c.description }),
        ...(c.mimeType === undefined ? {} : { mimeType: c.mimeType }),
        ...who
      }
  }
}

export const callResult = (result: CallToolResult): McpContent => ({
  blocks: [...result.content.map(contentBlock), ...(result.structuredContent === undefined ? [] : [{ _tag: "Structured" as const, value: result.structuredContent }])],
  isError: result.isError === true
})

export const readResult = (result: ReadResourceResult): McpContent => ({ blocks: result.contents.map((r) => resourceBlock(r)), isError: false })

export const promptResult = (result: GetPromptResult): McpContent => ({
  blocks: [
    ...(result.description === undefined ? [] : [{ _tag: "Text" as const, text: result.description }]),
    ...result.messages.map((msg): McpBlock => {
      const b = contentBlock(msg.content)
      return b._tag === "Text" ? { ...b, text: `${msg.role}: ${b.text}` } : b
    })
  ],
  isError: false
})

export const toolInfo = (t: Tool): McpToolInfo => ({
  name: t.name,
  description: t.description ?? "",
  inputSchema: t.inputSchema,
  ...(t.title === undefined ? {} : { title: t.title }),
  ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
  ...(t.annotations === undefined ? {} : { annotations: { ...t.annotations } }),
  ...(t.execution?.taskSupport === undefined ? {} : { taskSupport: t.execution.taskSupport })
})

export const resourceInfo = (r: Resource) => ({
  uri: r.uri,
  name: r.title ?? r.name,
  ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
  ...(r.description === undefined ? {} : { description: r.description })
})

export const templateInfo = (r: ResourceTemplate) => ({
  uriTemplate: r.uriTemplate,
  name: r.title ?? r.name,
  ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
  ...(r.description === undefined ? {} : { description: r.description })
})
