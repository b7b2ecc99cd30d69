/**
 * Rule family: git: configuration and options that run programs, destructive cleans, paths named after a
 * subcommand.
 */
import * as W from "../BashWords.js"
import * as P from "../../jail/PosixPath.js"
import { Rules, deny, simple, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { pathArg } from "./Paths.js"
import { benignPagers } from "./Variables.js"

/** Git configuration keys whose value is a program to run (or loads further config). */
export const gitExecKey = (key: string): boolean => {
  const k = key.toLowerCase()
  return (
    /^core\.(pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass|attributesfile|excludesfile)$/.test(k) ||
    /^(sequence\.editor|diff\.external|credential\.helper|gpg\.program|ssh\.variant|include\.path|uploadpack\.packobjectshook|web\.browser|interactive\.difffilter|man\.viewer)$/.test(k) ||
    /^(alias|pager|filter|diff|difftool|mergetool|merge|credential|gpg|protocol|remote|includeif|browser|man|instaweb|sendemail|url)\./.test(k) &&
      /(\.(textconv|command|cmd|driver|clean|smudge|process|helper|program|path|allow|receivepack|uploadpack|vcs|pushurl|insteadof|pushinsteadof|tool|sendmailcmd|smtpserver)$|^alias\.|^pager\.)/.test(k)
  )
}

export const git = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, _flags: ArgvFlags): void => {
  let i = 0
  let cwd = info.cwd
  for (; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) return deny(st, Rules.dynamicCommand, "git option is not literal")
    if (a === "-c") {
      const kv = lits[i + 1]
      if (kv === undefined) return deny(st, Rules.dynamicCommand, "git -c value is not literal")
      const key = kv.split("=")[0] ?? ""
      if (gitExecKey(key)) {
        const value = kv.slice(key.length + 1)
        if (!(/pager|editor/i.test(key) && benignPagers.test(value.trim()))) return deny(st, Rules.inlineInterpreter, `git -c ${key}=… runs a program`)
      }
      i++
      continue
    }
    if (a.startsWith("--config-env") || a.startsWith("--exec-path=") || a === "--exec-path") {
      if (a === "--exec-path") continue
      return deny(st, Rules.inlineInterpreter, `git ${a} can run other programs`)
    }
    if (a === "-C") {
      cwd = P.resolve(cwd, lits[i + 1] ?? "")
      i++
      continue
    }
    if (a === "--git-dir" || a === "--work-tree" || a === "--namespace" || a === "--super-prefix") {
      i++
      continue
    }
    if (a.startsWith("-")) continue
    break
  }
  const sub = lits[i]
  const args = lits.slice(i + 1)
  const info2 = { ...info, cwd }
  simple(st, ["git", ...rest.slice(i).map((f) => W.text(f))])
  const has = (re: RegExp) => args.some((a) => a !== undefined && re.test(a))
  switch (sub) {
    case "clean":
      if (has(/^-[a-zA-Z]*x/) || has(/^--ignored$/)) return deny(st, Rules.destruction, "git clean -x deletes ignored files too (.env, build caches, local config)")
      return
    case "config": {
      const kv = args.filter((a) => a !== undefined && !a.startsWith("-"))
      const key = kv[0]
      if (key !== undefined && gitExecKey(key) && kv.length >= 2 && !has(/^--(get|list|unset|get-all|get-regexp)/)) {
        const value = kv[1] ?? ""
        if (!(/pager|editor/i.test(key) && benignPagers.test(value.trim()))) return deny(st, Rules.inlineInterpreter, `git config ${key} installs a program to run`)
      }
      if (args.some((a) => a === undefined)) return deny(st, Rules.dynamicCommand, "git config with a non-literal value")
      return
    }
    case "rebase":
      if (has(/^(-x|--exec)(=.*)?$/)) return deny(st, Rules.inlineInterpreter, "git rebase --exec runs shell commands")
      return
    case "submodule":
      if (args.includes("foreach")) return deny(st, Rules.inlineInterpreter, "git submodule foreach runs shell commands")
      return
    case "filter-branch":
    case "filter-repo":
      return deny(st, Rules.inlineInterpreter, `git ${sub} runs shell snippets`)
    case "difftool":
    case "mergetool":
      if (has(/^(-x|--extcmd|-t|--tool)(=.*)?$/)) return deny(st, Rules.inlineInterpreter, `git ${sub} --extcmd runs a program`)
      return
    case "grep":
      if (has(/^(-O|--open-files-in-pager)/)) return deny(st, Rules.inlineInterpreter, "git grep -O runs a pager program")
      break
    case "bisect": {
      if (args[0] === "run") {
        const cmd = rest.slice(i + 2)
        if (cmd.length > 0) st.argv(cmd, info2, { substitution: false, procSub: false, privileged: false, text: "" })
      }
      return
    }
    case "fetch":
    case "pull":
    case "clone":
    case "push":
    case "ls-remote":
    case "archive":
      if (has(/^--(upload-pack|receive-pack|exec)(=|$)/) || (sub === "clone" && has(/^-u$/)) || (sub === "clone" && has(/^(-c|--config)$/))) {
        return deny(st, Rules.inlineInterpreter, `git ${sub} with a program option runs it`)
      }
      if (has(/^ext::/)) return deny(st, Rules.inlineInterpreter, "ext:: remotes run commands")
      return
    case "diff":
    case "log":
    case "show":
      if (has(/^--output(=|$)/)) {
        const o = args.findIndex((a) => a !== undefined && /^--output(=|$)/.test(a))
        const v = args[o]?.includes("=") === true ? args[o]?.slice(9) : args[o + 1]
        if (v !== undefined) pathArg(st, W.fromString(v), "write", cwd, `git ${sub} --output`)
      }
      break
    case "apply":
    case "add":
    case "commit":
    case "status":
    case "checkout":
    case "switch":
    case "restore":
    case "branch":
    case "tag":
    case "stash":
    case "merge":
    case "reset":
    case "rm":
    case "mv":
      break
  }
  // paths named after `git <sub>` (git add .env, git show HEAD:.env)
  for (let j = i + 1; j < rest.length; j++) {
    const a = lits[j]
    if (a !== undefined && a.startsWith("-")) continue
    const f = rest[j] ?? []
    const colon = a?.indexOf(":") ?? -1
    pathArg(st, colon > 0 && a !== undefined ? W.fromString(a.slice(colon + 1)) : f, "list-read", cwd, `git ${sub ?? ""}`)
    if (st.denial !== undefined) return
  }
}
