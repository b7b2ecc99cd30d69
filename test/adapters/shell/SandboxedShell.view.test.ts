/**
 * The sandbox shows exactly what the file tools show (issue 19), with the real bubblewrap and no guard in front:
 * a token in git's config is invisible to git and to a copy of `.git`; secrets at any depth, in ignored and
 * vendored folders too, are unreadable; `.git` and every masked path are mount points that cannot be moved or
 * replaced; secrets planted between calls are masked on the next one (the scan's cache revalidates); honest work
 * (git status, log, commit -am, an npm-test-like script, make) still runs. Skipped with the reason without a usable
 * user namespace; in CI that is a failure.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import * as SandboxedShell from "../../../src/adapters/shell/SandboxedShell.js"
import { Session } from "../../../src/ports/Session.js"
import { Shell, type ProcessSpec } from "../../../src/ports/Shell.js"
import { mustRun, title, unavailable } from "../../support/Sandbox.js"

const TOKEN = "ghp_SeCrEtToKeN1234567890"
const secrets: Record<string, string> = {
  "node_modules/.npmrc": `//registry.npmjs.org/:_authToken=${TOKEN}-npmrc`,
  "node_modules/pkg/test/fixtures/client.key": `${TOKEN}-vendored-key`,
  "dist/.env": `API=${TOKEN}-dist-env`,
  "build/server.pem": `${TOKEN}-build-pem`,
  "a/b/c/d/e/f/g/h/.env": `DEEP=${TOKEN}-deep`,
  "target/x/y/z/w/v/u/.ssh/id_ed25519": `${TOKEN}-deep-ssh`,
  ".env.production": `P=${TOKEN}-prod`,
  ".env": `ROOT=${TOKEN}-root-env`,
  "infra/prod.tfvars": `k="${TOKEN}-tfvars"`,
  "vendor/lib/.git-credentials": `https://u:${TOKEN}-gitcred@example.com`
}

const gitConfig = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
[remote "origin"]
\turl = https://x-access-token:${TOKEN}-url@github.com/acme/app.git
\tpushurl = ssh://deploy:${TOKEN}-push@git.example.com/app.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[http "https://github.com/"]
\textraHeader = AUTHORIZATION: basic ${TOKEN}-header
[http]
\textraheader = Authorization: Bearer ${TOKEN}-bearer
[credential "https://github.com"]
\tusername = ${TOKEN}-user
\thelper = store
[url "https://oauth2:${TOKEN}-insteadof@gitlab.com/"]
\tinsteadOf = https://gitlab.com/
[include]
\tpath = INCLUDED
[includeIf "gitdir:/"]
\tpath = INCLUDED
[github]
\ttoken = ${TOKEN}-github
[user]
\tname = Honest Dev
\temail = dev@example.com
`

interface Fixture {
  readonly base: string
  readonly ws: string
  readonly home: string
  /** The real .git/config, as written. */
  readonly config: string
}

const git = (cwd: string, ...args: ReadonlyArray<string>) => execFileSync("git", args, { cwd, stdio: "pipe" })

const fixture = Effect.acquireRelease(
  Effect.sync((): Fixture => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-view-")))
    const ws = path.join(base, "ws")
    const home = path.join(base, "home")
    fs.mkdirSync(path.join(ws, "src"), { recursive: true })
    fs.mkdirSync(home)
    fs.writeFileSync(path.join(ws, "src", "main.txt"), "hello\n")
    fs.writeFileSync(path.join(ws, "package.json"), JSON.stringify({ name: "f", version: "1.0.0", private: true, scripts: { test: "node test.js" } }))
    fs.writeFileSync(path.join(ws, "test.js"), "require('node:fs').readFileSync('src/main.txt', 'utf8').startsWith('hello\\n') || process.exit(1); console.log('tests ok')\n")
    fs.writeFileSync(path.join(ws, "Makefile"), "out/up.txt: src/main.txt\n\tmkdir -p out\n\ttr a-z A-Z < src/main.txt > out/up.txt\n")
    fs.writeFileSync(path.join(ws, ".gitignore"), "node_modules/\ndist/\nbuild/\ntarget/\nout/\n.env*\n*.tfvars\na/\nvendor/\n")
    git(ws, "init", "-q")
    // An include outside the workspace, which the host's git reads: the sanitized config drops includes.
    const included = path.join(base, "included.gitconfig")
    fs.writeFileSync(included, `[github]\n\toauth = ${TOKEN}-included\n`)
    const config = gitConfig.replaceAll("INCLUDED", included)
    fs.writeFileSync(path.join(ws, ".git", "config"), config)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "fixture")
    for (const [rel, content] of Object.entries(secrets)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true })
      fs.writeFileSync(path.join(ws, rel), content)
    }
    assert.include(git(ws, "config", "github.oauth").toString(), TOKEN)
    return { base, ws, home, config }
  }),
  (f) => Effect.sync(() => fs.rmSync(f.base, { recursive: true, force: true }))
)

const layerFor = (f: Fixture, writable = true) =>
  SandboxedShell.layer({ mode: "bwrap", unrestricted: false, writable, limits: { processes: 64, cpuSeconds: 60 } }).pipe(
    Layer.provide(BwrapSandbox.layer({ hostHome: f.home })),
    Layer.provide(Layer.succeed(Session, Session.of({ id: "t", turn: 1, root: f.ws, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 20 })))
  )

const run = (f: Fixture, command: string, over: Partial<ProcessSpec> = {}) =>
  Effect.flatMap(Shell, (sh) => sh.run({ command, cwd: f.ws, env: {}, timeoutMs: 30_000, maxOutputBytes: 1 << 20, ...over }))

const inSandbox = <A, E>(body: (f: Fixture) => Effect.Effect<A, E, Shell>, writable = true) =>
  Effect.scoped(Effect.flatMap(fixture, (f) => body(f).pipe(Effect.provide(layerFor(f, writable)))))

const noToken = (text: string, what: string) => assert.notInclude(text, TOKEN, `${what} showed the token:\n${text}`)

if (unavailable !== undefined && mustRun) {
  describe("sandbox view in CI", () => {
    it("bwrap must be usable in CI (CI=true)", () => assert.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("the sandbox's view: git sees a sanitized configuration"), () => {
  it.live("git remote -v, git config --list, cat .git/config and a copy of .git show no token; the remote is still named", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        for (const cmd of [
          "git remote -v",
          "git config --list --show-origin",
          "git config --get-all http.extraheader; git config --get credential.https://github.com.username; git config github.token; git config github.oauth",
          "cat .git/config",
          "cp -r .git g && cat g/config; rm -rf g",
          "tar cf - .git 2>/dev/null | strings",
          "grep -r ghp_ .git/ 2>&1"
        ]) {
          const r = yield* run(f, cmd)
          noToken(r.stdout + r.stderr, cmd)
        }
        const remote = yield* run(f, "git remote -v")
        assert.strictEqual(remote.exitCode, 0, remote.stderr)
        assert.include(remote.stdout, "https://github.com/acme/app.git")
        assert.include(remote.stdout, "ssh://git.example.com/app.git")
        const user = yield* run(f, "git config user.name")
        assert.strictEqual(user.stdout, "Honest Dev\n")
        // The host's file is untouched.
        assert.strictEqual(fs.readFileSync(path.join(f.ws, ".git", "config"), "utf8"), f.config)
      })
    )
  )

  it.live("the read-only workspace (git tools, servers) sees the same sanitized config", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const r = yield* run(f, "git config --list; cat .git/config; cat dist/.env a/b/c/d/e/f/g/h/.env")
        noToken(r.stdout + r.stderr, "read-only profile")
        assert.include(r.stdout, "remote.origin.url=https://github.com/acme/app.git")
      }), false)
  )
})

describe.skipIf(unavailable !== undefined)(title("the sandbox's view: secrets at any depth, in ignored and vendored folders"), () => {
  it.live("every secret the jail refuses reads as empty or fails, and a search of the tree finds none", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        for (const rel of Object.keys(secrets)) {
          const r = yield* run(f, `cat '${rel}'`)
          noToken(r.stdout, rel)
          assert.strictEqual(r.stdout, "", `${rel} was readable`)
        }
        const sweep = yield* run(f, "grep -r ghp_ . 2>/dev/null; find . -type f -exec cat {} + 2>/dev/null")
        noToken(sweep.stdout, "a sweep of the workspace")
        const hooks = yield* run(f, "ls -A .git/hooks | wc -l")
        assert.strictEqual(hooks.stdout.trim(), "0", "the hooks folder is masked")
      })
    )
  )

  it.live("a secret planted between calls, deep and in a folder the last call saw, is masked on the next call", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const first = yield* run(f, "cat node_modules/.npmrc")
        assert.strictEqual(first.stdout, "")
        fs.writeFileSync(path.join(f.ws, "node_modules", "pkg", ".env"), `${TOKEN}-planted`)
        fs.mkdirSync(path.join(f.ws, "a/b/c/d/e/f/g/h/i/j"), { recursive: true })
        fs.writeFileSync(path.join(f.ws, "a/b/c/d/e/f/g/h/i/j/id_rsa"), `${TOKEN}-planted-deep`)
        // Rename a non-secret into a secret name: the folder's ctime moves even if its mtime is set back.
        const mtime = fs.statSync(path.join(f.ws, "src")).mtime
        fs.writeFileSync(path.join(f.ws, "src", "notes.txt"), `${TOKEN}-renamed`)
        fs.renameSync(path.join(f.ws, "src", "notes.txt"), path.join(f.ws, "src", "secrets.yaml"))
        fs.utimesSync(path.join(f.ws, "src"), mtime, mtime)
        const again = yield* run(f, "cat node_modules/pkg/.env a/b/c/d/e/f/g/h/i/j/id_rsa src/secrets.yaml")
        noToken(again.stdout, "planted secrets")
        assert.strictEqual(again.stdout, "")
      })
    )
  )
})

describe.skipIf(unavailable !== undefined)(title("the sandbox's view: .git and masked paths cannot be moved or replaced"), () => {
  it.live("mv .git, mv .env-like paths, replacing .git/config or .git fail; the host repository is unchanged", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const head = git(f.ws, "rev-parse", "HEAD").toString()
        for (const cmd of [
          "mv .git g2",
          "mv dist/.env dist/env.txt",
          "mv .env.production x",
          "mv .env x",
          "ln -f /dev/null .env",
          "mv node_modules/.npmrc npmrc",
          "rm -f build/server.pem",
          "mv target/x/y/z/w/v/u/.ssh target/ssh",
          "mv .git/config .git/config.old",
          "mv .git/hooks .git/hooks-old",
          "echo '[core] fsmonitor = evil' >> .git/config",
          "rmdir .git"
        ]) {
          const r = yield* run(f, cmd)
          assert.notStrictEqual(r.exitCode, 0, `${cmd} succeeded`)
        }
        // The attack of issue 19: move .git away, build another with a planted config, move it in.
        const swap = yield* run(f, "mv .git g2 ; mkdir -p /tmp/n && git init -q /tmp/n && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> /tmp/n/.git/config && cp -r /tmp/n/.git newgit && mv -T newgit .git; git config core.fsmonitor; rm -rf newgit")
        assert.notInclude(swap.stdout, "touch /tmp/pwned")
        assert.strictEqual(fs.readFileSync(path.join(f.ws, ".git", "config"), "utf8"), f.config)
        assert.isFalse(fs.existsSync(path.join(f.ws, "g2")))
        assert.isFalse(fs.existsSync(path.join(f.ws, "newgit")))
        assert.strictEqual(git(f.ws, "rev-parse", "HEAD").toString(), head)
        for (const rel of Object.keys(secrets)) assert.strictEqual(fs.readFileSync(path.join(f.ws, rel), "utf8"), secrets[rel], rel)
      })
    )
  )
})

describe.skipIf(unavailable !== undefined)(title("the sandbox's view: honest work still runs"), () => {
  it.live("git status, git log, git commit -am, an npm test script and make", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const env = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" }
        const status = yield* run(f, "echo more >> src/main.txt && git status --short && git log --oneline")
        assert.strictEqual(status.exitCode, 0, status.stderr)
        assert.include(status.stdout, "M src/main.txt")
        assert.include(status.stdout, "fixture")
        const commit = yield* run(f, "git commit -q -am 'from the sandbox' && git log --oneline | head -1", { env })
        assert.strictEqual(commit.exitCode, 0, commit.stderr)
        assert.include(commit.stdout, "from the sandbox")
        assert.include(git(f.ws, "log", "--oneline").toString(), "from the sandbox")
        const npm = yield* run(f, "npm test")
        assert.strictEqual(npm.exitCode, 0, npm.stderr)
        assert.include(npm.stdout, "tests ok")
        const make = yield* run(f, "make && cat out/up.txt")
        assert.strictEqual(make.exitCode, 0, make.stderr)
        assert.isTrue(make.stdout.endsWith("HELLO\nMORE\n"), make.stdout)
        assert.strictEqual(fs.readFileSync(path.join(f.ws, "out", "up.txt"), "utf8"), "HELLO\nMORE\n")
      })
    )
  )
})
