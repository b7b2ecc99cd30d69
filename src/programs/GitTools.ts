/**
 * Git tools. Reads run with repository-controlled execution neutralised: no fsmonitor, no hooks, no external diff
 * or textconv, no pager, no system config. `git_commit` refuses a repository that configures filters (they run
 * programs on `git add`); `git_push` refuses one whose local config can run programs (sshCommand, askPass,
 * credential helpers, receive/upload-pack).
 */
import { Effect } from "effect"
import * as Jail from "../domain/Jail.js"
import { ToolFailed } from "../domain/Errors.js"
import { redact } from "../domain/Redact.js"
import { Session } from "../ports/Session.js"
import { Shell } from "../ports/Shell.js"
import type { Invocation } from "../ports/ToolExecutor.js"
import type { Extension } from "./Executor.js"

const safety = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.pager=cat",
  "-c", "diff.external=",
  "-c", "core.sshCommand=ssh",
  "-c", "commit.gpgSign=false",
  "-c", "tag.gpgSign=false",
  "-c", "core.editor=true",
  "--no-pager"
]

const gitEnv = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_EXTERNAL_DIFF: "",
  LC_ALL: "C"
}

export const make = Effect.gen(function* () {
  const shell = yield* Shell
  const session = yield* Session
  const git = (args: ReadonlyArray<string>, tool: string) =>
    shell
      .run({ command: ["git", ...safety, ...args], cwd: session.root, env: gitEnv, timeoutMs: 60_000, maxOutputBytes: session.maxOutputBytes })
      .pipe(Effect.mapError((e) => new ToolFailed({ tool, reason: e.reason })))
  const ok = (tool: string) => (args: ReadonlyArray<string>) =>
    Effect.flatMap(git(args, tool), (r) =>
      r.exitCode === 0
        ? Effect.succeed(r.stdout)
        : Effect.fail(new ToolFailed({ tool, reason: (r.stderr.trim() || r.stdout.trim() || `git exited with ${r.exitCode}`).split("\n").slice(0, 5).join("\n") }))
    )
  const rel = (inv: Invocation, field: string) => {
    const facts = inv.resolved[field]
    return facts === undefined ? [] : ["--", Jail.display(session, facts.lexical)]
  }
  const out = (text: string, empty: string) => ({ text: redact(text.replace(/\n$/, "")) || empty, truncated: text.includes("[truncated: ") })

  const extension: Extension = (inv) => {
    const call = inv.facts.call
    switch (call.tool) {
      case "git_status":
        return Effect.map(ok("git_status")(["status", "--short", "--branch", "--untracked-files=normal"]), (t) => out(t, "clean"))
      case "git_diff":
        return Effect.map(
          ok("git_diff")(["diff", "--no-ext-diff", "--no-textconv", "--no-color", ...(call.args.staged === true ? ["--staged"] : []), ...rel(inv, "path")]),
          (t) => out(t, "no changes")
        )
      case "git_log":
        return Effect.map(
          ok("git_log")(["log", "--no-color", "--no-show-signature", `-n${call.args.limit ?? 20}`, "--format=%h %ad %an%n    %s", "--date=short", ...rel(inv, "path")]),
          (t) => out(t, "no commits")
        )
      case "git_show":
        return Effect.map(
          ok("git_show")(["show", "--no-ext-diff", "--no-textconv", "--no-color", "--no-show-signature", "--end-of-options", call.args.rev, ...rel(inv, "path")]),
          (t) => out(t, "(empty)")
        )
      case "git_commit":
        return Effect.gen(function* () {
          const filters = yield* git(["config", "--get-regexp", "^filter\\."], "git_commit")
          if (filters.stdout.trim() !== "") {
            return yield* new ToolFailed({ tool: "git_commit", reason: "this repository configures filters, which run programs on git add; commit it yourself" })
          }
          const paths = call.args.paths.map((_, i) => {
            const facts = inv.resolved[`paths[${i}]`]
            return facts === undefined ? "" : Jail.display(session, facts.lexical)
          })
          yield* ok("git_commit")(["add", "--", ...paths])
          const done = yield* ok("git_commit")(["commit", "--no-verify", "-m", call.args.message, "--", ...paths])
          return out(done, "committed")
        })
      case "git_push":
        return Effect.gen(function* () {
          const risky = yield* git(
            ["config", "--local", "--get-regexp", "^(core\\.sshcommand|core\\.askpass|credential\\..*|remote\\..*\\.(receivepack|uploadpack)|url\\..*)$"],
            "git_push"
          )
          if (risky.stdout.trim() !== "") {
            return yield* new ToolFailed({ tool: "git_push", reason: "this repository's own config can run programs on push (sshCommand, askPass, credential helper, receivepack, url rewrite); push it yourself" })
          }
          const args = ["push", "--no-verify", ...(call.args.remote === undefined ? [] : ["--end-of-options", call.args.remote]), ...(call.args.branch === undefined ? [] : [call.args.branch])]
          const r = yield* git(args, "git_push")
          return { text: redact(`${r.stdout}${r.stderr}`.trim() || "pushed"), truncated: false, isError: r.exitCode !== 0 }
        })
      default:
        return undefined
    }
  }
  return extension
})
