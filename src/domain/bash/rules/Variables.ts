/**
 * Rule family: variables and expansions: literal assignments the walk can follow, variables that make programs
 * run code (`LD_PRELOAD`, `GIT_SSH_COMMAND`, pagers…), declarations that dump the environment.
 */
import { field as fieldOf, fields as fieldsOf, type BashNode } from "../BashAst.js"
import * as W from "../BashWords.js"
import { Rules, deny, simple, type CommandInfo, type Walk } from "../Walk.js"

export const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Commands that assign the variables they name (so their value is unknown afterwards). */
export const readers: ReadonlySet<string> = new Set(["read", "readarray", "mapfile", "getopts", "printf", "let", "unset", "declare", "typeset", "local", "export", "readonly", "wait", "select"])

/** Names whose every assignment in the unit is the same literal value, with that value. */
export const literalAssignments = (root: BashNode, scope: W.Scope): Map<string, W.VarValue> => {
  const seen = new Map<string, W.VarValue>()
  const note = (name: string, value: W.VarValue) => {
    const prior = seen.get(name)
    if (prior === undefined) seen.set(name, value)
    else if (prior === "unknown" || value === "unknown" || prior.value !== value.value) seen.set(name, "unknown")
  }
  const walk = (node: BashNode, arithmetic: boolean) => {
    switch (node.type) {
      case "variable_assignment": {
        const name = fieldOf(node, "name")
        const value = fieldOf(node, "value")
        if (name !== undefined) {
          const nameText = name.type === "subscript" ? fieldOf(name, "name")?.text ?? name.text : name.text
          if (name.type === "subscript" || node.text.includes("+=")) note(nameText, "unknown")
          else {
            const v = W.expandValue(value, { ...scope, vars: new Map() })
            const s = W.literal(v.field)
            note(nameText, s === undefined || v.commandSubstitution ? "unknown" : { value: s, tainted: /\$\(|`|\$\{/.test(s) })
          }
        }
        break
      }
      case "for_statement": {
        const variable = fieldOf(node, "variable")
        if (variable !== undefined) note(variable.text, "unknown")
        break
      }
      case "variable_name":
        if (arithmetic) note(node.text, "unknown")
        break
      case "command": {
        const name = fieldOf(node, "name")
        if (name !== undefined && readers.has(name.text)) {
          for (const arg of fieldsOf(node, "argument")) {
            const m = /^-?([A-Za-z_][A-Za-z0-9_]*)/.exec(arg.text.replace(/^-[a-zA-Z]*\s*/, ""))
            if (m?.[1] !== undefined) note(m[1], "unknown")
            if (identifier.test(arg.text)) note(arg.text, "unknown")
          }
        }
        break
      }
      case "unset_command":
      case "declaration_command":
        for (const c of node.children) if (c.type === "variable_name" || c.type === "word") note(c.text.replace(/^-+/, ""), "unknown")
        break
    }
    const arith =
      arithmetic ||
      node.type === "arithmetic_expansion" ||
      node.type === "c_style_for_statement" ||
      (node.type === "compound_statement" && node.text.startsWith("(("))
    for (const c of node.children) walk(c, arith)
  }
  walk(root, false)
  return seen
}

// ---------------------------------------------------------------------------------------------------------------
// Node kinds

/** `VAR=…` for these runs a program or loads code. */
export const execVars = new Set([
  "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV",
  "PROMPT_COMMAND", "PERL5OPT", "PERL5DB", "LESSOPEN", "LESSCLOSE", "SHELLOPTS", "BASHOPTS", "BASH_FUNC", "PYTHONSTARTUP",
  "PYTHONINSPECT", "GIT_DIFF_OPTS", "GIT_SEQUENCE_EDITOR"
])

export const pagerVars = new Set(["GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER"])

export const benignPagers = /^(cat|less( -[A-Za-z]+)*|more|true|:|vim?|nvim|nano|emacs|code( --wait| -w)?|delta|bat|most|ed|)$/

/** A literal that holds `$(…)` is code once bash evaluates it arithmetically or as a prompt. */
export const taint = (st: Walk, root: BashNode, assigned: ReadonlyMap<string, W.VarValue>): void => {
  const tainted = new Set<string>()
  const collect = (node: BashNode): void => {
    if (node.type === "variable_assignment" && /\$\(|`|\$\{/.test(fieldOf(node, "value")?.text ?? "")) tainted.add(fieldOf(node, "name")?.text ?? "")
    node.children.forEach(collect)
  }
  collect(root)
  void assigned
  if (tainted.size === 0) return
  const walk = (node: BashNode, evaluating: boolean): void => {
    if (evaluating && (node.type === "variable_name" || node.type === "word") && tainted.has(node.text.replace(/^\$\{?|\}$/g, ""))) {
      deny(st, Rules.dynamicCommand, `$${node.text} holds command text and is evaluated arithmetically`)
    }
    const ev =
      evaluating ||
      node.type === "arithmetic_expansion" ||
      node.type === "test_command" ||
      node.type === "c_style_for_statement" ||
      node.type === "subscript" ||
      (node.type === "compound_statement" && node.text.startsWith("(("))
    node.children.forEach((c) => walk(c, ev))
  }
  walk(root, false)
}

export const assignment = (st: Walk, node: BashNode, info: CommandInfo, prefix: boolean): void => {
  const name = fieldOf(node, "name")?.text ?? ""
  const valueNode = fieldOf(node, "value")
  if (valueNode !== undefined) st.word(valueNode, info)
  const value = W.expandValue(valueNode, info.scope)
  if (value.problem !== undefined) return deny(st, Rules.dynamicCommand, value.problem)
  envVar(st, name, W.literal(value.field), prefix)
}

/** Variables that make later programs run code. */
export const envVar = (st: Walk, name: string, value: string | undefined, _prefix: boolean): void => {
  const upper = name.toUpperCase()
  if (execVars.has(upper) || upper.startsWith("GIT_CONFIG_KEY_") || upper.startsWith("GIT_CONFIG_VALUE_") || upper.startsWith("BASH_FUNC_")) {
    return deny(st, Rules.inlineInterpreter, `${name}= makes programs run or load other code`)
  }
  if (pagerVars.has(upper) && (value === undefined || !benignPagers.test(value.trim()))) {
    return deny(st, Rules.inlineInterpreter, `${name}=${value ?? "…"} names a program to run; only plain pagers and editors pass`)
  }
  if (upper === "NODE_OPTIONS" && (value === undefined || /(^|\s)(-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print)\b/.test(value))) {
    return deny(st, Rules.inlineInterpreter, "NODE_OPTIONS loads code into every node process")
  }
  if ((upper === "RUBYOPT" || upper === "JAVA_TOOL_OPTIONS" || upper === "_JAVA_OPTIONS") && (value === undefined || /-r|agent/.test(value))) {
    return deny(st, Rules.inlineInterpreter, `${name} loads code into every process`)
  }
  if (/^PS[0-4]$/.test(upper) && (value === undefined || /\$\(|`/.test(value))) {
    return deny(st, Rules.inlineInterpreter, `${name} with a command substitution runs code on every prompt or trace line`)
  }
}

export const declaration = (st: Walk, node: BashNode, info: CommandInfo): void => {
  const keyword = node.children.find((c) => !c.named)?.text ?? node.text.split(/\s/)[0] ?? ""
  const assignments = node.children.filter((c) => c.type === "variable_assignment")
  const operands = node.children.filter((c) => c.named && c.type !== "variable_assignment")
  for (const a of assignments) assignment(st, a, info, false)
  for (const o of operands) st.word(o, info)
  const names = operands.filter((o) => !o.text.startsWith("-") && !o.text.startsWith("+"))
  const options = operands.filter((o) => o.text.startsWith("-") || o.text.startsWith("+")).map((o) => o.text).join("")
  simple(st, [keyword, ...operands.map((o) => o.text), ...assignments.map((a) => a.text)])
  if (assignments.length === 0 && names.length === 0 && !/[fFn]/.test(options)) {
    deny(st, Rules.envDump, `\`${node.text}\` without names prints every variable, secrets included`)
  }
  if (/n/.test(options)) {
    // namerefs alias another variable: the indirection cannot be followed statically
    for (const a of assignments) info.scope.vars.set(fieldOf(a, "name")?.text ?? "", "unknown")
  }
}
