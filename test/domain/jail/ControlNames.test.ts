import { describe, expect, it } from "vitest"
import * as Aliases from "../../../src/domain/jail/Aliases.js"

describe("Aliases.controlNames: the names an editor reads a path by through a symlink at a control's name", () => {
  const root = "/ws"
  const p: Aliases.Protected = { ...Aliases.none, controls: new Map([["/ws/config/vscode", ".vscode"], ["/ws/cfg/tasks.json", "pkg/.vscode/tasks.json"]]) }
  it("a file below a linked folder, the linked file itself, and nothing else", () => {
    expect(Aliases.controlNames(p, root, "/ws/config/vscode/tasks.json")).toEqual([".vscode/tasks.json"])
    expect(Aliases.controlNames(p, root, "/ws/config/vscode/sub/x.json")).toEqual([".vscode/sub/x.json"])
    expect(Aliases.controlNames(p, root, "/ws/cfg/tasks.json")).toEqual(["pkg/.vscode/tasks.json"])
    expect(Aliases.controlNames(p, root, "/ws/config/other.json")).toEqual([])
    expect(Aliases.controlNames(Aliases.none, root, "/ws/config/vscode/tasks.json")).toEqual([])
  })
})
