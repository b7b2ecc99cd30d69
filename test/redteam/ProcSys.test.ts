/**
 * Red team (issue 19), was a hole: when minicode runs as root (containers, CI, dev boxes), sandboxed bash can write the
 * HOST kernel's sysctls. bwrap maps uid 0 to uid 0 in its user namespace, and /proc/sys grants writes by uid (the
 * kernel's sysctl check compares the euid with the global root, not a capability), while the sandbox's /proc is a
 * read-write proc mount with /proc/sys left writable (only /proc/irq and /proc/bus are read-only). So `echo
 * '|/path/in/workspace/prog' > /proc/sys/kernel/core_pattern` from bash would make the kernel run a workspace program
 * as root in the host's namespaces at the next crash of any process: a program the repository controls, outside
 * the sandbox (invariant 3), and `kernel/hostname`, `vm/*`… change the machine (invariant 2).
 *
 * The test writes core_pattern's CURRENT value back (no change to the machine) and checks that the write is refused.
 * The full escape was not run on the shared machine. Skipped when the tests do not run as root.
 *
 * Suggested fix: domain/sandbox/SandboxProfile.ts (the bwrap arguments after `--proc /proc`): `--ro-bind /proc/sys
 * /proc/sys` (and `/proc/sysrq-trigger`), or map the sandbox's user to a non-root uid when the host runs as root.
 */
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const root = process.getuid?.() === 0

describe.skipIf(unavailable !== undefined || !root)(title("host sysctls from sandboxed bash (minicode as root)"), () => {
  it("writing /proc/sys/kernel/core_pattern (its own value) is refused", () => {
    const { script } = attackWorkspace(cleanups)
    const out = script(
      [
        "for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/hostname /proc/sys/vm/drop_caches; do test -w $f && echo \"writable $f\"; done",
        'v=$(cat /proc/sys/kernel/core_pattern) && printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo WROTE',
        "echo end"
      ].join("\n")
    )
    expect(out).toContain("end")
    expect(out).not.toContain("WROTE")
    expect(out).not.toContain("writable ")
  })
})
