/**
 * Rule family: redirections (`>`, `<`, `>&`, heredocs, here-strings): what they write and read, and what they
 * feed on stdin.
 */
import { field as fieldOf, type BashNode } from "../BashAst.js"
import * as W from "../BashWords.js"
import { Rules, deny, noStdin, type CommandInfo, type Stdin, type Walk } from "../Walk.js"
import { pathArg } from "./Paths.js"

export const redirected = (st: Walk, node: BashNode, info: CommandInfo): void => {
  const body = fieldOf(node, "body")
  const redirects = node.children.filter((c) => c.field === "redirect" || (c.named && c !== body && c.type.endsWith("redirect")))
  let stdin = info.stdin
  for (const r of redirects) {
    const s = redirect(st, r, info)
    if (s !== undefined) stdin = s
  }
  if (body === undefined) return
  if (body.type === "list") {
    // tree-sitter hangs `a && b > f` on the whole list; bash applies it to `b`, after any `cd` in `a`
    const after = st.seq(body.children, { ...info, stdin })
    if (after.cwd !== info.cwd) for (const r of redirects) redirect(st, r, after)
    return
  }
  st.visit(body, { ...info, stdin })
}

/** Judges one redirect; returns what it feeds to stdin, if anything. */
export const redirect = (st: Walk, node: BashNode, info: CommandInfo): Stdin | undefined => {
  if (node.type === "heredoc_redirect") {
    const quoted = /['"\\]/.test(node.children.find((c) => c.type === "heredoc_start")?.text ?? "")
    let body = ""
    for (const c of node.children) {
      if (c.type === "heredoc_body") {
        body = c.text
        if (!quoted) st.word(c, info)
      } else if (c.type === "pipeline") {
        // `cat <<EOF | sh`: the rest of the pipeline reads what the first command writes
        c.children.filter((x) => x.named).forEach((x) => st.visit(x, { ...info, stdin: { kind: "pipe" } }))
      } else if (c.field === "redirect") redirect(st, c, info)
      else if (c.named && c.type !== "heredoc_start" && c.type !== "heredoc_end") st.visit(c, { ...info, stdin: noStdin })
    }
    return { kind: "heredoc", body }
  }
  if (node.type === "herestring_redirect") {
    const value = node.children.find((c) => c.named)
    if (value === undefined) return { kind: "herestring", body: undefined }
    st.word(value, info)
    const v = W.expandValue(value, info.scope)
    return { kind: "herestring", body: W.literal(v.field) }
  }
  // file_redirect
  const dest = fieldOf(node, "destination") ?? node.children.filter((c) => c.named && c.field !== "descriptor").pop()
  const op = node.children.filter((c) => !c.named).map((c) => c.text).join("")
  if (dest === undefined) return undefined
  st.word(dest, info)
  if (op === ">&" || op === "<&" || op === ">&-" || op === "<&-") {
    if (dest.type === "number" || /^\d+-?$|^-$/.test(dest.text)) return undefined
  }
  const expanded = W.expand(dest, info.scope)
  if (expanded.problem !== undefined) return void deny(st, Rules.dynamicCommand, expanded.problem)
  const reading = op === "<" || op === "<&"
  for (const f of expanded.fields) pathArg(st, f, reading ? "read" : "write", info.cwd, `redirect ${op}`)
  const from = expanded.fields.length === 1 ? W.literal(expanded.fields[0] ?? []) : undefined
  if (reading && (from === undefined || /^\/(dev\/(stdin|fd\/0)|proc\/self\/fd\/0)$/.test(from))) return { kind: "pipe" }
  return reading ? { kind: "file" } : undefined
}
