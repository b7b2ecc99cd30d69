/**
 * Red team (issue 19), passwords git keeps in `.git/config` under names the sanitizer does not know: bash sees a
 * sanitized copy of `.git/config` (SanitizedConfig.sanitize), which drops names matching token, passw, secret… But
 * git's own documented password keys are `sendemail.smtpPass` (git send-email) and `imap.pass` (git imap-send):
 * `smtppass` and `pass` match none of them, so both passwords are shown to bash as they are.
 */
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("passwords in .git/config under git's own key names"), () => {
  it("sendemail.smtpPass and imap.pass are not in the copy bash reads", () => {
    const ws = attackWorkspace(cleanups)
    ws.git("config", "sendemail.smtpPass", "canary-smtp-pass")
    ws.git("config", "imap.pass", "canary-imap-pass")
    const out = ws.script("cat .git/config; echo read-done")
    expect(out).toContain("read-done")
    expect(out).toContain("repositoryformatversion")
    expect(out).not.toContain("canary-smtp-pass")
    expect(out).not.toContain("canary-imap-pass")
  })
})
