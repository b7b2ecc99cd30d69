/**
 * Rule family: network: raw sockets, remote copies, uploads with curl/wget/httpie, and their output files.
 */
import * as W from "../BashWords.js"
import { Rules, deny, type ArgvFlags, type CommandInfo, type Walk } from "../Walk.js"
import { pathArg } from "./Paths.js"

export const networkCommands = new Set([
  "curl", "wget", "http", "https", "xh", "xhs", "httpie", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp",
  "sftp", "rsync", "ftp", "tftp", "dig", "nslookup", "host", "ping", "openssl", "aria2c", "lftp", "smbclient",
  "gsutil", "rclone", "s3cmd"
])

export const socketCommands = new Set(["nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp", "sftp", "lftp", "smbclient"])

export const network = (st: Walk, base: string, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, flags: ArgvFlags): void => {
  if (flags.substitution || flags.procSub) return deny(st, Rules.exfiltration, `${base} with a command substitution in its arguments can send command output`)
  if (socketCommands.has(base)) return deny(st, Rules.exfiltration, `${base} opens raw network connections`)
  if (base === "openssl" && lits.some((a) => a === "s_client" || a === "s_server")) return deny(st, Rules.exfiltration, "openssl s_client opens raw network connections")
  if (base === "ssh") {
    if (lits.length === 1 && (lits[0] === "-V" || lits[0] === "-G")) return
    return deny(st, Rules.exfiltration, "ssh connects to another host")
  }
  if (base === "scp" || base === "rsync" || base === "rclone" || base === "gsutil" || base === "s3cmd") {
    const remote = lits.find((a) => a === undefined || /^[^/.-][^/]*:/.test(a) || /^(rsync|s3|gs):\/\//.test(a))
    if (remote !== undefined || lits.some((a) => a === "-e" || a?.startsWith("--rsh") === true)) {
      return deny(st, Rules.exfiltration, `${base} to a remote host`)
    }
    return
  }
  if (base === "curl") {
    for (let i = 0; i < lits.length; i++) {
      const a = lits[i]
      if (a === undefined) continue
      const value = lits[i + 1]
      const long = /^--(data|data-binary|data-urlencode|data-ascii|json|form|form-string|upload-file|config)(=(.*))?$/.exec(a)
      if (long !== null) {
        const v = long[3] ?? value
        const opt = long[1] ?? ""
        if (opt === "upload-file" || opt === "config") return deny(st, Rules.exfiltration, `curl --${opt} sends a file`)
        if (v === undefined || /(^|=)@|^<|=</.test(v) || (opt === "form" && /[@<]/.test(v)) || (opt === "data-urlencode" && /^[^=]*@/.test(v))) return deny(st, Rules.exfiltration, `curl --${opt} ${v ?? "…"} uploads a file or stdin`)
        continue
      }
      if (/^-[a-zA-Z]*[TK]/.test(a) && !a.startsWith("--")) return deny(st, Rules.exfiltration, `curl ${a} uploads a file`)
      const short = /^-[a-zA-Z]*([dF])(.*)$/.exec(a)
      if (short !== null && !a.startsWith("--")) {
        const v = short[2] !== "" ? short[2] : value
        if (v === undefined || /(^|=)@|^<|=</.test(v) || (short[1] === "F" && /[@<]/.test(v))) return deny(st, Rules.exfiltration, `curl ${a} uploads a file or stdin`)
      }
      if (a.startsWith("file:")) pathArg(st, W.fromString(a.replace(/^file:\/\/(localhost)?/, "")), "read", info.cwd, "curl")
    }
    outputs(st, rest, lits, info, curlOutputs, "curl")
    return
  }
  if (base === "wget") {
    const bad = lits.find((a) => a !== undefined && /^--(post|body)-(data|file)|^--method/.test(a))
    if (bad !== undefined) return deny(st, Rules.exfiltration, `wget ${bad} sends data`)
    outputs(st, rest, lits, info, wgetOutputs, "wget")
    const pfx = lits.findIndex((a) => a === "-P" || a === "--directory-prefix")
    if (pfx >= 0 && rest[pfx + 1] !== undefined) pathArg(st, rest[pfx + 1] ?? [], "write", info.cwd, "wget -P")
    return
  }
  if (base === "http" || base === "https" || base === "xh" || base === "xhs" || base === "httpie") {
    const upload = lits.find((a) => a === undefined || /^[^-=:@][^=:@]*(=@|:=@|@)/.test(a) || a.startsWith("@"))
    if (upload !== undefined) return deny(st, Rules.exfiltration, `${base} ${upload ?? "…"} uploads a file`)
    if (info.stdin.kind !== "none" && !lits.includes("--ignore-stdin")) return deny(st, Rules.exfiltration, `${base} sends what it reads on stdin`)
    return
  }
  if (base === "aria2c" || base === "lftp") return
}

/** `-o FILE` style options are writes. */
export const outputs = (st: Walk, rest: ReadonlyArray<W.Field>, lits: ReadonlyArray<string | undefined>, info: CommandInfo, options: ReadonlySet<string>, what: string): void => {
  for (let i = 0; i < lits.length; i++) {
    const a = lits[i]
    if (a === undefined) continue
    const eq = a.indexOf("=")
    if (a.startsWith("--") && eq > 0 && options.has(a.slice(0, eq))) pathArg(st, W.fromString(a.slice(eq + 1)), "write", info.cwd, what)
    else if (options.has(a)) {
      const f = rest[i + 1]
      if (f !== undefined && W.literal(f) !== "-") pathArg(st, f, "write", info.cwd, what)
      i++
    } else {
      const short = /^(-[a-zA-Z])(.+)$/.exec(a)
      if (short !== null && options.has(short[1] ?? "") && !a.startsWith("--")) pathArg(st, W.fromString(short[2] ?? ""), "write", info.cwd, what)
    }
  }
}

export const curlOutputs: ReadonlySet<string> = new Set(["-o", "--output"])

export const wgetOutputs: ReadonlySet<string> = new Set(["-O", "--output-document", "-o", "--output-file", "-a", "--append-output"])
