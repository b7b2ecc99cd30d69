/**
 * The git configuration a sandboxed process is shown instead of the real one: parsed with `GitConfig.parse` and
 * written back without what authenticates. Pure.
 *
 * Removed: `credential.*` (helpers, usernames, per-URL sections), `include.*` / `includeIf.*` (they read further
 * files, possibly secret ones), every `http.*.extraHeader`, and any variable whose name says it holds a secret
 * (token, pass, password, secret, cookie, auth, credential, api key) or whose value carries an HTTP authorization
 * (`Authorization:`, `Bearer …`, `Basic …`). Kept, with the user information stripped: every URL in a value or a
 * subsection (`https://user:token@host/x` → `https://host/x`), so `remote.origin.url` still names the remote.
 * A file git would reject is shown as empty (git would refuse it anyway; nothing of it leaks).
 */
import * as GitConfig from "./GitConfig.js"

/** `scheme://userinfo@` → `scheme://`: what authenticates in a URL, wherever one appears in the text. */
export const stripUserinfo = (text: string): string => text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s?#]*@/gi, "$1")

// `pass` on its own: git's documented password keys are `sendemail.smtpPass` and `imap.pass` (was a hole, red team).
const secretName = /token|pass|secret|cookie|auth|extraheader|apikey|api-key|api_key|privatekey|credential/
const secretValue = /authorization\s*:|\b(bearer|basic|token)\s+[a-z0-9._~+/=-]{8,}/i

/** Why this entry is left out of the sanitized file, or undefined to keep it (with its URLs stripped). */
export const dropReason = (e: GitConfig.Entry): string | undefined => {
  if (e.section === "credential") return "credential settings"
  if (e.section === "include" || e.section === "includeif") return "includes read further files"
  if (secretName.test(e.name)) return `${e.name} holds a secret`
  if (e.value !== undefined && secretValue.test(e.value)) return "the value carries an authorization"
  return undefined
}

const quote = (s: string): string =>
  s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\u0008/g, "\\b")

/** The sanitized text: one header per run of entries in the same section, every value quoted. */
export const sanitize = (text: string): string => {
  const parsed = GitConfig.parse(text)
  if (!parsed.ok) return ""
  const out: Array<string> = []
  let header: string | undefined
  for (const e of parsed.entries) {
    if (dropReason(e) !== undefined) continue
    const sub = e.subsection === undefined ? undefined : stripUserinfo(e.subsection)
    const h = sub === undefined ? `[${e.section}]` : `[${e.section} "${quote(sub)}"]`
    if (h !== header) {
      out.push(h)
      header = h
    }
    out.push(e.value === undefined ? `\t${e.name}` : `\t${e.name} = "${quote(stripUserinfo(e.value))}"`)
  }
  return out.length === 0 ? "" : out.join("\n") + "\n"
}
