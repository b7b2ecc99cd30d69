/**
 * Where a workspace's records live (domain/core/StateHome): the places in order, and never inside the workspace nor
 * holding it, whatever the environment says (issue 41: a record a tool or a sandboxed program could write decided
 * what minicode put back). The sandbox masks a state place a host bind would show (SandboxProfile.hiddenMasks).
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as StateHome from "../../../src/domain/core/StateHome.js"
import * as P from "../../../src/domain/jail/PosixPath.js"
import * as SP from "../../../src/domain/sandbox/SandboxProfile.js"

const seg = FastCheck.constantFrom("home", "me", "ws", ".local", "state", "minicode", "run", "user", "0", "work", "a")
const abs = FastCheck.array(seg, { minLength: 0, maxLength: 5 }).map((s) => `/${s.join("/")}`)
const deep = FastCheck.array(seg, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join("/")}`)

describe("StateHome", () => {
  it("the places in order: $XDG_STATE_HOME/minicode, ~/.local/state/minicode, $XDG_RUNTIME_DIR/minicode/state; relative ones ignored", () => {
    assert.deepStrictEqual(StateHome.candidates({ XDG_STATE_HOME: "/s", XDG_RUNTIME_DIR: "/run/user/1" }, "/home/me"), [
      "/s/minicode",
      "/home/me/.local/state/minicode",
      "/run/user/1/minicode/state"
    ])
    assert.deepStrictEqual(StateHome.candidates({ XDG_STATE_HOME: "rel/state" }, "/home/me"), ["/home/me/.local/state/minicode"])
    assert.deepStrictEqual(StateHome.candidates({ XDG_STATE_HOME: "" }, undefined), [])
    assert.deepStrictEqual(StateHome.candidates({}, "/"), [])
  })

  it("a place inside the workspace, the workspace itself, or one holding it is never usable", () => {
    assert.isFalse(StateHome.usable("/home/me", "/home/me/.local/state/minicode"))
    assert.isFalse(StateHome.usable("/home/me/ws", "/home/me/ws"))
    assert.isFalse(StateHome.usable("/home/me/.local/state/minicode/x", "/home/me/.local/state/minicode"))
    assert.isFalse(StateHome.usable("/ws", "/"))
    assert.isTrue(StateHome.usable("/home/me/ws", "/home/me/.local/state/minicode"))
    assert.isTrue(StateHome.usable("/home/me/ws", "/home/me/ws-state/minicode"))
    FastCheck.assert(
      FastCheck.property(abs, abs, (ws, place) => {
        if (StateHome.usable(ws, place)) return !P.isInside(ws, place) && !P.isInside(place, ws)
        return true
      })
    )
  })

  it("the folder name is one safe segment, the workspace's name kept for readability", () => {
    assert.strictEqual(StateHome.folderName("/home/me/my app", "abc"), "my_app-abc")
    assert.strictEqual(StateHome.folderName("/", "abc"), "root-abc")
    assert.strictEqual(StateHome.folderName("/x/..hidden", "abc"), "_hidden-abc")
    FastCheck.assert(
      FastCheck.property(FastCheck.string(), (name) => {
        const n = StateHome.folderName(`/w/${name.replace(/\//g, "")}`, "h")
        return /^[A-Za-z0-9_][A-Za-z0-9._-]*-h$/.test(n) && !n.includes("/") && n !== "." && n !== ".."
      })
    )
  })

  it("the id's source differs with the device, the inode, the birth and the path", () => {
    const base = StateHome.idSource("/w", "1", "2", "3")
    for (const other of [StateHome.idSource("/w", "9", "2", "3"), StateHome.idSource("/w", "1", "9", "3"), StateHome.idSource("/w", "1", "2", "9"), StateHome.idSource("/v", "1", "2", "3")])
      assert.notStrictEqual(other, base)
  })
})

describe("the sandbox never shows a state place", () => {
  const host: SP.HostFacts = { system: [{ path: "/usr", kind: "directory" }, { path: "/opt", kind: "directory" }], secretFiles: [], secretDirs: [] }
  const profile = (over: Partial<SP.Profile>): SP.Profile => ({ workspace: "/work/ws", writable: true, cwd: "/work/ws", home: "/home/me", findings: [], network: false, limits: {}, ...over })

  it("masked where a system folder or an extra read-only bind holds it, after that bind; not where nothing shows it", () => {
    const args = SP.bwrapArgs(host, profile({ hidden: ["/opt/state/minicode"] }), ["true"])
    const mask = args.findIndex((a, i) => a === "--tmpfs" && args[i + 1] === "/opt/state/minicode")
    assert.isAbove(mask, args.indexOf("/opt"))
    assert.strictEqual(args[mask + 2], "--remount-ro")
    const extra = SP.bwrapArgs(host, profile({ hidden: ["/home/me/.local/state/minicode"], extraReadOnly: ["/home/me/.local"] }), ["true"])
    const bind = extra.findIndex((a, i) => a === "--ro-bind-try" && extra[i + 1] === "/home/me/.local")
    const hid = extra.findIndex((a, i) => a === "--tmpfs" && extra[i + 1] === "/home/me/.local/state/minicode")
    assert.isAbove(bind, -1)
    assert.isAbove(hid, bind)
    // Under the private home (a tmpfs) or /tmp, with nothing binding it: not there to mask.
    assert.deepStrictEqual(SP.hiddenMasks(host, profile({ hidden: ["/home/me/.local/state/minicode", "/tmp/x/minicode"] })), [])
  })

  it("property: every hidden place under a bound folder is masked after every bind that holds it", () => {
    FastCheck.assert(
      FastCheck.property(deep, FastCheck.array(deep, { maxLength: 3 }), (hidden, extra) => {
        // A state place is never the workspace's, nor holds it (StateHome.usable).
        if (P.isInside("/work/ws", hidden) || P.isInside(hidden, "/work/ws")) return true
        const args = SP.bwrapArgs(host, profile({ hidden: [hidden], extraReadOnly: extra }), ["true"])
        const shownBy = [...host.system.map((e) => e.path), ...extra].filter((b) => P.isInside(b, hidden))
        const masked = args.findIndex((a, i) => a === "--tmpfs" && args[i + 1] === hidden && args[i + 2] === "--remount-ro")
        const boundAt = (b: string) => args.reduce((last, a, i) => ((a === "--ro-bind" || a === "--ro-bind-try") && args[i + 1] === b ? i : last), -1)
        return shownBy.length === 0 ? masked === -1 : masked > -1 && shownBy.every((b) => boundAt(b) < masked)
      })
    )
  })
})
