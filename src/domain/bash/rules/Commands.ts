/**
 * The deny families, on a normalised command: builtins that dump the environment or re-enter the shell, then
 * the family of the command's name, then its path arguments.
 */
import * as W from "../BashWords.js"
import { Rules, deny, noStdin, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { deviceTarget } from "../PathPatterns.js"
import { dd, destruction, find, tar } from "./Filesystem.js"
import { git } from "./Git.js"
import { interpreter, interpreterName, shell, shells } from "./Interpreters.js"
import { network, networkCommands } from "./Network.js"
import { pathArg, paths } from "./Paths.js"
import { awk, sed } from "./TextTools.js"
import { envVar } from "./Variables.js"

/** The deny families, on a normalised command. */
export const judgeSimple = (st: Walk, base: string, name: string, rest: ReadonlyArray<W.Field>, info: CommandInfo, flags: ArgvFlags): void => {
  const lits = rest.map((f) => W.literal(f))
  const words = rest.map((f) => W.text(f))
  // anywhere: /proc/*/environ, /dev/tcp
  for (const f of rest) {
    const t = W.text(f)
    if (/\/dev\/(tcp|udp)\//.test(t)) return deny(st, Rules.exfiltration, `${t} opens a network connection`)
  }
  if (shells.has(base)) return shell(st, base, rest, info, flags)
  switch (base) {
    case "eval": {
      if (lits.some((s) => s === undefined)) return deny(st, Rules.dynamicCommand, "eval of a string that is not literal")
      return st.script(lits.join(" "), info, "eval")
    }
    case "source":
    case ".": {
      const f = rest[0]
      if (f === undefined) return
      if (flags.procSub || W.hasUnknown(f) && W.text(f) === "\uE000") return deny(st, Rules.inlineInterpreter, `${base} of a process substitution or unknown file runs code the guard cannot see`)
      const t = W.literal(f)
      if (t === "/dev/stdin" || t === "-" || t === "/dev/fd/0" || t === "/proc/self/fd/0") return deny(st, Rules.inlineInterpreter, `${base} ${t} runs code fed on stdin`)
      pathArg(st, f, "read", info.cwd, base)
      return
    }
    case "trap": {
      const action = lits[0]
      if (rest.length >= 2 && action !== "-" && action !== "" && !/^-[lp]$/.test(action ?? "")) {
        if (action === undefined) return deny(st, Rules.dynamicCommand, "trap with a non-literal action")
        if (!/^(SIG)?[A-Z0-9]+$/.test(action)) return st.script(action, { ...info, stdin: noStdin }, "trap")
      }
      return
    }
    case "alias": {
      for (const a of lits) {
        if (a === undefined) return deny(st, Rules.dynamicCommand, "alias with a non-literal value")
        const eq = a.indexOf("=")
        if (eq > 0) st.script(a.slice(eq + 1), { ...info, stdin: noStdin }, "alias")
      }
      return
    }
    case "printenv":
      if (!lits.some((a) => a !== undefined && !a.startsWith("-"))) return deny(st, Rules.envDump, "printenv without a name prints every variable, secrets included")
      break
    case "set":
      if (rest.length === 0) return deny(st, Rules.envDump, "set without arguments prints every variable, secrets included")
      break
    case "export":
    case "declare":
    case "typeset":
    case "local":
    case "readonly": {
      const names = lits.filter((a) => a === undefined || !/^[-+]/.test(a))
      const opts = lits.filter((a) => a !== undefined && /^[-+]/.test(a)).join("")
      if (names.length === 0 && !/[fF]/.test(opts)) return deny(st, Rules.envDump, `${base} without names prints every variable, secrets included`)
      for (const a of lits) if (a !== undefined && a.includes("=")) envVar(st, a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1), false)
      break
    }
    case "compgen":
      if (lits.some((a) => a !== undefined && (/^-[a-zA-Z]*[ve]/.test(a) || a === "variable" || a === "export"))) {
        return deny(st, Rules.envDump, "compgen -v lists every variable")
      }
      break
    case "ps":
      if (lits.some((a) => a !== undefined && ((!a.startsWith("-") && /e/.test(a) && /^[a-zA-Z]+$/.test(a)) || a === "-E"))) {
        return deny(st, Rules.envDump, "ps e prints the environment of processes")
      }
      break
  }
  // network and upload
  if (networkCommands.has(base)) {
    network(st, base, rest, lits, info, flags)
    if (st.denial !== undefined) return
  }
  const interp = interpreterName(base)
  if (interp !== undefined) {
    interpreter(st, base, interp, rest, lits, info, flags)
    if (st.denial !== undefined) return
  }
  switch (base) {
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
    case "busybox-awk":
      awk(st, rest, lits, info)
      break
    case "sed":
    case "gsed":
      sed(st, rest, lits, info)
      break
    case "find":
    case "gfind":
      return find(st, rest, lits, info, flags)
    case "tar":
    case "gtar":
    case "bsdtar":
      tar(st, rest, lits, info)
      break
    case "git":
      return git(st, rest, lits, info, flags)
    case "dd":
      dd(st, rest, info)
      break
    case "shred":
    case "wipefs":
    case "fdisk":
    case "sfdisk":
    case "parted":
    case "sgdisk":
    case "mkswap":
    case "mke2fs":
    case "badblocks":
      for (const w of words) if (deviceTarget.test(w)) return deny(st, Rules.destruction, `${base} on ${w} destroys a disk`)
      if (base !== "shred") return deny(st, Rules.destruction, `${base} rewrites disks or partitions`)
      break
    case "rm":
    case "rmdir":
    case "unlink":
    case "chmod":
    case "chown":
    case "chgrp":
    case "mv":
      destruction(st, base, rest, lits, info)
      break
    case "crontab":
      if (!lits.some((a) => a === "-l")) return deny(st, Rules.inlineInterpreter, "crontab installs commands that run later, outside the guard")
      break
    case "at":
    case "batch":
      return deny(st, Rules.inlineInterpreter, `${base} schedules commands that run later, outside the guard`)
    case "mkfifo":
      break
  }
  if (/^mkfs(\.|$)/.test(base)) {
    return deny(st, Rules.destruction, `${base} formats a file system`)
  }
  if (st.denial !== undefined) return
  paths(st, base, rest, lits, info)
}
