import { describe, expect, it } from "vitest"
import * as TreeControls from "../../../src/domain/git/TreeControls.js"

const root = "/w/repo"
const cfg = "/w/repo/.git/config"

describe("TreeControls", () => {
  it("core.hooksPath: relative to the worktree, absolute as is, ~/ to the home; includes relative to their file", () => {
    const c = TreeControls.fromConfig(cfg, "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../project.gitconfig\n[includeIf \"onbranch:main\"]\n\tpath = ~/x.inc\n", root, "/home/u")
    expect(c.hooks).toEqual(["/w/repo/.githooks"])
    expect(c.configs).toEqual(["/w/repo/project.gitconfig", "/home/u/x.inc"])
    expect(TreeControls.fromConfig(cfg, "[core]\n\thooksPath = /w/repo/tools/hooks\n", root, undefined).hooks).toEqual(["/w/repo/tools/hooks"])
    expect(TreeControls.within(root, TreeControls.fromConfig(cfg, "[core]\n\thooksPath = /tmp/h\n[include]\n\tpath = /etc/x\n", root, undefined))).toEqual(TreeControls.none)
    // A config git rejects adds nothing (git refuses to run with it).
    expect(TreeControls.fromConfig(cfg, "[core\n\thooksPath = h\n", root, undefined)).toEqual(TreeControls.none)
  })

  it("programs named by a path in program keys; husky 9's `_` stands for the folder above too", () => {
    const text = '[core]\n\tfsmonitor = ./fsmon.sh\n\tpager = less\n[alias]\n\tst = !scripts/st.sh --short\n[diff "x"]\n\ttextconv = "tools/conv" -q\n[user]\n\tname = a/b\n'
    expect(TreeControls.fromConfig(cfg, text, root, undefined).programs).toEqual(["/w/repo/fsmon.sh", "/w/repo/scripts/st.sh", "/w/repo/tools/conv"])
    expect(TreeControls.fromConfig(cfg, "[core]\n\thooksPath = .husky/_\n", root, undefined).hooks).toEqual(["/w/repo/.husky/_", "/w/repo/.husky"])
  })

  it("init.templateDir: the template folder and its hooks/ (copied into every new repository)", () => {
    const c = TreeControls.fromConfig("/home/u/.gitconfig", "[init]\n\ttemplateDir = ~/dotfiles/git-template\n", root, "/home/u")
    expect(c.hooks).toEqual(["/home/u/dotfiles/git-template", "/home/u/dotfiles/git-template/hooks"])
    expect(TreeControls.changeReason(c, "/home/u/dotfiles/git-template/hooks/post-checkout", false)).toMatch(/hooks folder/)
  })

  it("changes inside the hooks folder or to an included config are refused; a structural change of a folder holding one too", () => {
    const c: TreeControls.TreeControls = { hooks: ["/w/repo/tools/hooks"], configs: ["/w/repo/conf/git.inc"], programs: ["/w/repo/bin/fsmon"] }
    expect(TreeControls.changeReason(c, "/w/repo/tools/hooks/pre-commit", false)).toMatch(/hooks folder/)
    expect(TreeControls.changeReason(c, "/w/repo/tools/hooks", false)).toMatch(/hooks folder/)
    expect(TreeControls.changeReason(c, "/w/repo/conf/git.inc", false)).toMatch(/includes it/)
    expect(TreeControls.changeReason(c, "/w/repo/bin/fsmon", false)).toMatch(/names it as a program/)
    expect(TreeControls.changeReason(c, "/w/repo/bin", true)).toMatch(/holds a program/)
    expect(TreeControls.changeReason(c, "/w/repo/tools", true)).toMatch(/holds a hooks folder/)
    expect(TreeControls.changeReason(c, "/w/repo/conf", true)).toMatch(/holds a file/)
    // Honest neighbours: a sibling, a look-alike name, a folder holding one written (not moved).
    expect(TreeControls.changeReason(c, "/w/repo/tools/notes.txt", true)).toBeUndefined()
    expect(TreeControls.changeReason(c, "/w/repo/tools/hooks2/x", false)).toBeUndefined()
    expect(TreeControls.changeReason(c, "/w/repo/conf/git.inc.bak", false)).toBeUndefined()
    expect(TreeControls.changeReason(c, "/w/repo/tools", false)).toBeUndefined()
  })
})
