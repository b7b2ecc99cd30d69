import { describe, expect, it } from "vitest"
import * as HS from "../../../src/domain/sandbox/HostSecrets.js"

describe("HostSecrets", () => {
  it("walks the secret places the sandbox shows: /usr/local of a bound /usr, not all of /usr; no unbound /var", () => {
    expect(HS.walkRoots(["/usr", "/etc", "/opt", "/lib", "/nix/store"])).toEqual(["/etc", "/opt", "/usr/local"])
    // A bound folder inside a place is walked itself (not the whole place); nested ones once.
    expect(HS.walkRoots(["/var/lib/tool/bin", "/var/lib/tool", "/srv/app"])).toEqual(["/srv/app", "/var/lib/tool"])
    expect(HS.walkRoots(["/usr", "/run"])).toEqual(["/run/secrets", "/usr/local"])
    expect(HS.walkRoots([])).toEqual([])
  })

  it("private: a file others cannot read, a folder others cannot list or enter", () => {
    expect(HS.isPrivate("file", 0o600)).toBe(true)
    expect(HS.isPrivate("file", 0o640)).toBe(true)
    expect(HS.isPrivate("file", 0o644)).toBe(false)
    expect(HS.isPrivate("directory", 0o700)).toBe(true)
    expect(HS.isPrivate("directory", 0o711)).toBe(true)
    expect(HS.isPrivate("directory", 0o754)).toBe(true)
    expect(HS.isPrivate("directory", 0o755)).toBe(false)
  })

  it("judges: a private folder masked whole unless it holds a kept path; nothing inside a kept path; all below a closed folder", () => {
    expect(HS.judge("/opt/a/key", "file", 0o600)).toBe("mask")
    expect(HS.judge("/opt/a/readme", "file", 0o644)).toBe("pass")
    expect(HS.judge("/opt/a", "directory", 0o700)).toBe("mask")
    expect(HS.judge("/opt/a", "directory", 0o755)).toBe("enter")
    expect(HS.judge("/opt/a", "directory", 0o700, ["/opt/a/ws"])).toBe("enter")
    expect(HS.judge("/opt/a/ws", "directory", 0o700, ["/opt/a/ws"])).toBe("pass")
    expect(HS.judge("/opt/a/ws/id_rsa", "file", 0o600, ["/opt/a/ws"])).toBe("pass")
    expect(HS.judge("/opt/a/notes", "file", 0o644, ["/opt/a/ws"], true)).toBe("mask")
    expect(HS.judge("/opt/a/open", "directory", 0o755, ["/opt/a/ws"], true)).toBe("mask")
    expect(HS.judge("/opt/a/link", "other", 0o777)).toBe("pass")
  })

  it("around what a sandbox shows: masks inside it dropped, a private folder holding it to be walked, the rest kept", () => {
    const entries: HS.Entries = { files: ["/opt/k", "/opt/ws/k"], dirs: ["/opt/p", "/opt/q", "/opt/ws/d"], truncated: false }
    expect(HS.around(entries, ["/opt/p/ws", "/opt/ws"])).toEqual({ files: ["/opt/k"], dirs: ["/opt/q"], descend: ["/opt/p"], truncated: false })
    expect(HS.merge([entries, { files: ["/opt/k", "/x"], dirs: [], truncated: true }])).toEqual({
      files: ["/opt/k", "/opt/ws/k", "/x"],
      dirs: ["/opt/p", "/opt/q", "/opt/ws/d"],
      truncated: true
    })
  })
})
