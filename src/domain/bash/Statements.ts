/**
 * The walk over statements and words: lists, pipelines, compound statements, substitutions, simple commands
 * (expanded to argv and handed to the wrappers).
 */
import { field as fieldOf, fields as fieldsOf, type BashNode } from "./BashAst.js"
import * as W from "./BashWords.js"
import * as P from "../jail/PosixPath.js"
import { Rules, deny, noStdin, type CommandInfo, type MutableScope, type Walk } from "./Walk.js"
import { redirect, redirected } from "./rules/Redirections.js"
import { assignment, declaration } from "./rules/Variables.js"

export const statementKinds = new Set([
  "program", "list", "pipeline", "subshell", "compound_statement", "redirected_statement", "if_statement",
  "elif_clause", "else_clause", "while_statement", "for_statement", "c_style_for_statement", "do_group",
  "case_statement", "case_item", "function_definition", "negated_command", "test_command", "command",
  "variable_assignment", "variable_assignments", "declaration_command", "unset_command", "comment"
])

export const wordKinds = new Set([
  "word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "simple_expansion",
  "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "number", "brace_expression",
  "extglob_pattern", "regex", "array", "string_content", "variable_name", "special_variable_name", "subscript",
  "binary_expression", "unary_expression", "ternary_expression", "postfix_expression", "parenthesized_expression",
  "test_operator", "file_descriptor", "command_name", "file_redirect", "heredoc_redirect", "herestring_redirect",
  "heredoc_start", "heredoc_body", "heredoc_content", "heredoc_end"
])

export const knownKinds = new Set([...statementKinds, ...wordKinds])

// ---------------------------------------------------------------------------------------------------------------
// Command tables

/** The working folder after a `cd` the guard cannot follow: relative writes then land outside the workspace. */
export const unknownCwd = "/\uE000"

export const changesDirectory = (node: BashNode): boolean => {
  if (node.type === "subshell" || node.type === "pipeline" || node.type === "command_substitution" || node.type === "process_substitution") return false
  if (node.type === "command") {
    const name = fieldOf(node, "name")?.text
    return name === "cd" || name === "pushd" || name === "popd"
  }
  return node.children.some(changesDirectory)
}

/** Fork bombs: a function that calls itself in a pipeline or in the background. */
export const fork = (st: Walk, root: BashNode): void => {
  const walk = (node: BashNode): void => {
    if (node.type === "function_definition") {
      const name = fieldOf(node, "name")?.text
      const body = fieldOf(node, "body")
      if (name !== undefined && body !== undefined) {
        const calls = (n: BashNode): boolean =>
          (n.type === "command" && fieldOf(n, "name")?.text === name) || n.children.some(calls)
        const parallel = (n: BashNode): boolean =>
          ((n.type === "pipeline" || n.children.some((c) => !c.named && c.type === "&")) && calls(n)) || n.children.some(parallel)
        if (parallel(body)) deny(st, Rules.destruction, `function ${name} starts copies of itself: a fork bomb`)
      }
    }
    node.children.forEach(walk)
  }
  walk(root)
}

/** Top-level statements in order: definite literal assignments update the scope as they are passed. */
export const statements = (st: Walk, root: BashNode, info: CommandInfo, assigned: ReadonlyMap<string, W.VarValue>): void => {
  let current = info
  for (const child of root.children) {
    if (st.denial !== undefined) return
    current = step(st, child, current)
    definite(st, child, info.scope, assigned)
  }
}

/** Statements in order; a `cd` changes the folder later relative paths resolve against. */
export const seq = (st: Walk, children: ReadonlyArray<BashNode>, info: CommandInfo): CommandInfo => {
  let current = info
  for (const child of children) {
    if (st.denial !== undefined) break
    current = step(st, child, current)
  }
  return current
}

export const step = (st: Walk, child: BashNode, info: CommandInfo): CommandInfo => {
  if (child.type === "list" || (child.type === "compound_statement" && !child.text.startsWith("(("))) return seq(st, child.children, info)
  visit(st, child, info)
  if (child.type === "command") {
    const name = fieldOf(child, "name")?.text
    if (name === "cd" || name === "pushd" || name === "popd") {
      const args = fieldsOf(child, "argument").flatMap((a) => W.expand(a, info.scope).fields)
      const operands = args.filter((f) => !W.text(f).startsWith("-"))
      const target = operands[0]
      if (name === "popd") return { ...info, cwd: unknownCwd }
      if (target === undefined) return { ...info, cwd: info.scope.home ?? unknownCwd }
      const t = W.literal(target)
      return { ...info, cwd: t === undefined || info.cwd === unknownCwd ? unknownCwd : P.resolve(info.cwd, t) }
    }
    return info
  }
  return changesDirectory(child) ? { ...info, cwd: unknownCwd } : info
}

export const definite = (st: Walk, node: BashNode, scope: MutableScope, assigned: ReadonlyMap<string, W.VarValue>): void => {
  const set = (a: BashNode) => {
    const name = fieldOf(a, "name")?.text
    if (name === undefined) return
    const v = assigned.get(name)
    if (v !== undefined && v !== "unknown") scope.vars.set(name, v)
  }
  if (node.type === "variable_assignment") set(node)
  else if (node.type === "variable_assignments") node.children.filter((c) => c.type === "variable_assignment").forEach(set)
  else if (node.type === "declaration_command") node.children.filter((c) => c.type === "variable_assignment").forEach(set)
  else if (node.type === "list") {
    const first = node.children.find((c) => c.named)
    if (first !== undefined) definite(st, first, scope, assigned)
  }
}

export const visit = (st: Walk, node: BashNode, info: CommandInfo): void => {
  if (st.denial !== undefined) return
  if (!node.named) return
  if (!knownKinds.has(node.type)) return deny(st, Rules.unknownNode, `the guard does not know the shell construct \`${node.type}\``)
  switch (node.type) {
    case "comment":
      return
    case "command":
      return command(st, node, info)
    case "pipeline": {
      const parts = node.children.filter((c) => c.named)
      parts.forEach((c, i) => {
        const previous = parts[i - 1]
        visit(st, c, i === 0 ? info : { ...info, stdin: { kind: "pipe", echoed: previous === undefined ? undefined : W.echoedWords(previous.text) } })
      })
      return
    }
    case "redirected_statement":
      return redirected(st, node, info)
    case "subshell":
    case "compound_statement":
    case "do_group":
    case "if_statement":
    case "elif_clause":
    case "else_clause":
    case "while_statement":
    case "case_statement":
    case "case_item":
    case "negated_command":
    case "list":
    case "program":
      seq(st, node.children, info)
      return
    case "c_style_for_statement":
    case "test_command":
      for (const c of node.children) visit(st, c, info)
      return
    case "for_statement":
      for (const c of node.children) {
        if (c.field === "value") word(st, c, info)
        else visit(st, c, info)
      }
      return
    case "function_definition": {
      const name = fieldOf(node, "name")?.text
      if (name !== undefined) st.functions.add(name)
      for (const c of node.children) if (c.field !== "name") visit(st, c, info)
      return
    }
    case "variable_assignment":
      return assignment(st, node, info, false)
    case "variable_assignments":
    case "declaration_command":
    case "unset_command":
      if (node.type === "declaration_command") return declaration(st, node, info)
      for (const c of node.children) visit(st, c, info)
      return
    case "command_substitution":
    case "process_substitution":
      // its own unit: judged like a statement list, with nothing on stdin
      for (const c of node.children) visit(st, c, { ...info, stdin: noStdin })
      return
    case "file_redirect":
    case "heredoc_redirect":
    case "herestring_redirect":
      redirect(st, node, info)
      return
    default:
      // word-level nodes: look inside for substitutions
      return word(st, node, info)
  }
}

/** Judges the substitutions inside a word; the word's value is judged by its command. */
export const word = (st: Walk, node: BashNode, info: CommandInfo): void => {
  if (!knownKinds.has(node.type) && node.named) return deny(st, Rules.unknownNode, `the guard does not know the shell construct \`${node.type}\``)
  if (node.type === "command_substitution" || node.type === "process_substitution") return visit(st, node, info)
  for (const c of node.children) if (c.named) word(st, c, info)
}

export const command = (st: Walk, node: BashNode, info: CommandInfo): void => {
  let stdin = info.stdin
  const prefixes: Array<BashNode> = []
  const argNodes: Array<BashNode> = []
  for (const c of node.children) {
    if (!c.named) continue
    if (c.type === "variable_assignment") prefixes.push(c)
    else if (c.field === "redirect" || c.type.endsWith("redirect")) {
      const s = redirect(st, c, info)
      if (s !== undefined) stdin = s
    } else if (c.field === "name" || c.field === "argument" || wordKinds.has(c.type)) argNodes.push(c)
    else visit(st, c, info)
  }
  for (const p of prefixes) assignment(st, p, info, true)
  const argv: Array<W.Field> = []
  let substitution = false
  let procSub = false
  for (const a of argNodes) {
    const target = a.type === "command_name" ? a.children.find((c) => c.named) ?? a : a
    word(st, target, info)
    if (!knownKinds.has(target.type)) return deny(st, Rules.unknownNode, `the guard does not know the shell construct \`${target.type}\``)
    const e = W.expand(target, info.scope)
    if (e.problem !== undefined) return deny(st, Rules.dynamicCommand, e.problem)
    if (e.overflow) return deny(st, Rules.tooLarge, "brace expansion produces more words than the guard judges")
    substitution = substitution || e.commandSubstitution
    procSub = procSub || e.processSubstitution
    if (a.type === "command_name" && e.fields.length === 0) return deny(st, Rules.dynamicCommand, `the command name \`${a.text}\` expands to nothing known`)
    // A command name made by a substitution is not a literal word, even when its output is known (`$(echo rm)`).
    if (a.type === "command_name" && e.commandSubstitution) {
      return deny(st, Rules.dynamicCommand, `the command name \`${a.text}\` comes from a command substitution`)
    }
    argv.push(...e.fields)
  }
  if (st.denial !== undefined) return
  if (argv.length === 0) return
  st.argv(argv, { ...info, stdin }, { substitution, procSub, privileged: false, text: node.text })
}
