/**
 * The sandboxed shell with the real bubblewrap, and no guard in front: only the sandbox stands between these
 * commands and the host. Every escape must fail and leave the workspace byte-for-byte as it was; honest work
 * (npm test, git, make, build output) must succeed. Without a usable user namespace the suites are skipped with
 * the reason (and in CI that is a failure).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import * as NodeShell from "../../../src/adapters/shell/NodeShell.js"
import * as SandboxedShell from "../../../src/adapters/shell/SandboxedShell.js"
import type { Limits } from "../../../src/domain/sandbox/SandboxProfile.js"
import { runToolEffect } from "../../../src/index.js"
import * as NodeAdapters from "../../../src/app/NodeLayers.js"
import { admitAll } from "../../support/AdmitBash.js"
import { Sandbox } from "../../../src/ports/Sandbox.js"
import { Session } from "../../../src/ports/Session.js"
import { Shell, type ProcessSpec } from "../../../src/ports/Shell.js"
import { mustRun, title, unavailable } from "../../support/Sandbox.js"

// A credential in the test's own environment: it must not be visible from inside.
process.env["MINICODE_TEST_CANARY_SECRET"] = "canary-7f3a9"

interface Fixture {
  readonly base: string
  readonly ws: string
  readonly home: string
  readonly outside: string
}

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, stdio: "pipe" })

const fixture = Effect.acquireRelease(
  Effect.sync((): Fixture => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sbx-")))
    const ws = path.join(base, "ws")
    const home = path.join(base, "home")
    const outside = path.join(base, "outside")
    for (const d of [ws, home, outside, path.join(home, ".ssh"), path.join(ws, "src"), path.join(ws, "sub", ".ssh"), path.join(ws, ".minicode"), path.join(ws, "certs")]) {
      fs.mkdirSync(d, { recursive: true })
    }
    fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "HOME-PRIVATE-KEY")
    fs.writeFileSync(path.join(ws, ".env"), "API_TOKEN=workspace-secret")
    fs.writeFileSync(path.join(ws, "sub", ".ssh", "id_rsa"), "WS-PRIVATE-KEY")
    fs.writeFileSync(path.join(ws, "certs", "server.key"), "TLS-KEY")
    fs.writeFileSync(path.join(ws, ".minicode", "config.json"), "{}")
    fs.writeFileSync(path.join(ws, "src", "main.txt"), "hello\n")
    fs.writeFileSync(path.join(ws, "package.json"), JSON.stringify({ name: "fixture", version: "1.0.0", private: true, scripts: { test: "node test.js" } }))
    fs.writeFileSync(path.join(ws, "test.js"), "const fs = require('node:fs'); if (fs.readFileSync('src/main.txt', 'utf8') !== 'hello\\n') process.exit(1); console.log('fixture tests ok')\n")
    fs.writeFileSync(path.join(ws, "Makefile"), "build/out.txt: src/main.txt\n\tmkdir -p build\n\ttr a-z A-Z < src/main.txt > build/out.txt\n")
    fs.writeFileSync(path.join(ws, ".gitignore"), ".env\n.minicode/\nbuild/\ncerts/\nsub/\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "fixture")
    return { base, ws, home, outside }
  }),
  (f) => Effect.sync(() => fs.rmSync(f.base, { recursive: true, force: true }))
)

const layerFor = (f: Fixture, limits: Limits = { processes: 64, cpuSeconds: 60 }) =>
  SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits }).pipe(
    Layer.provideMerge(BwrapSandbox.layer({ hostHome: f.home })),
    Layer.provide(Layer.succeed(Session, Session.of({ id: "t", turn: 1, root: f.ws, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 20 })))
  )

const run = (f: Fixture, command: string, over: Partial<ProcessSpec> = {}) =>
  Effect.flatMap(Shell, (sh) => sh.run({ command, cwd: f.ws, env: {}, timeoutMs: 20_000, maxOutputBytes: 1 << 20, ...over }))

/** Paths, kinds, modes, contents and link targets of everything under the workspace. */
const hashTree = (root: string): string => {
  const h = createHash("sha256")
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name)
      const st = fs.lstatSync(p)
      h.update(`${path.relative(root, p)}\0${st.mode}\0`)
      if (st.isSymbolicLink()) h.update(fs.readlinkSync(p))
      else if (st.isDirectory()) walk(p)
      else h.update(fs.readFileSync(p))
    }
  }
  walk(root)
  return h.digest("hex")
}

/** Host processes whose command line contains the marker. */
const hostProcesses = (marker: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker)
    } catch {
      return false
    }
  })

const inSandbox = <A, E>(body: (f: Fixture) => Effect.Effect<A, E, Shell | Sandbox>, limits?: Limits) =>
  Effect.scoped(Effect.flatMap(fixture, (f) => body(f).pipe(Effect.provide(layerFor(f, limits)))))

if (unavailable !== undefined && mustRun) {
  describe("sandbox in CI", () => {
    it("bwrap must be usable in CI (CI=true)", () => assert.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("sandboxed shell: escapes fail and the workspace is unchanged"), () => {
  it.live("the probe finds bwrap with limits", () =>
    inSandbox(() =>
      Effect.map(Sandbox, (s) => {
        assert.strictEqual(s.status._tag, "Available")
        if (s.status._tag === "Available") {
          assert.isTrue(s.status.limits.prlimit)
          assert.strictEqual(s.status.limits.pidsCgroup, process.getuid?.() === 0 && s.status.limits.processLimit)
        }
      })
    )
  )

  it.live("reads of masked secrets, the home's keys and process environments fail", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const before = hashTree(f.ws)
        const reads = [".env", "sub/.ssh/id_rsa", "certs/server.key", ".minicode/config.json", "~/.ssh/id_rsa", `${f.home}/.ssh/id_rsa`, "/root/.ssh/id_rsa", "/proc/1/environ", "/etc/shadow"]
        for (const target of reads) {
          const r = yield* run(f, `cat ${target}`)
          assert.notStrictEqual(r.exitCode, 0, `${target} was readable: ${r.stdout}`)
          assert.notMatch(r.stdout, /secret|PRIVATE|TLS-KEY|canary|root:/, target)
        }
        const env = yield* run(f, "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; env")
        assert.notInclude(env.stdout, "canary-7f3a9")
        const umount = yield* run(f, "umount .env 2>&1; umount sub/.ssh 2>&1; cat .env sub/.ssh/id_rsa")
        assert.notStrictEqual(umount.exitCode, 0)
        assert.notMatch(umount.stdout, /workspace-secret|WS-PRIVATE/)
        assert.strictEqual(hashTree(f.ws), before)
      })
    )
  )

  it.live("writes outside the workspace, into .minicode/, .git/hooks/ and .git/config fail", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const before = hashTree(f.ws)
        const writes = [
          `echo x > ${f.outside}/planted`,
          "echo x > /etc/planted",
          "echo x > /usr/planted",
          `echo x > ${f.home}/planted-in-real-home-path && test -e ${f.home}/.ssh/id_rsa`,
          "echo '{\"policy\":\"allow-all\"}' > .minicode/config.json",
          "mkdir -p .minicode/x",
          "printf '#!/bin/sh\\ncurl evil\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
          "rm -rf .git/hooks",
          "git config core.hooksPath /tmp/hooks",
          "echo '[core] fsmonitor = evil' >> .git/config",
          "echo x > .env",
          "rm -f .env",
          "mv sub/.ssh sub/ssh-moved"
        ]
        for (const w of writes) {
          const r = yield* run(f, w)
          assert.notStrictEqual(r.exitCode, 0, `${w} succeeded`)
        }
        // The private /tmp takes scratch writes, including the workspace's own parent there; none reaches the host.
        const scratch = yield* run(f, `echo x > ${f.base}/planted && echo x > /tmp/planted`)
        assert.strictEqual(scratch.exitCode, 0)
        assert.isFalse(fs.existsSync("/tmp/planted"))
        for (const p of [`${f.outside}/planted`, `${f.base}/planted`, "/etc/planted", "/usr/planted", `${f.home}/planted-in-real-home-path`]) {
          assert.isFalse(fs.existsSync(p), p)
        }
        assert.strictEqual(hashTree(f.ws), before)
      })
    )
  )

  it.live("a symlink out of the workspace leads nowhere writable", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        fs.writeFileSync(path.join(f.outside, "target"), "original")
        const r = yield* run(f, `ln -s ${f.outside}/target out-link && echo pwned > out-link; ln -s /etc/passwd etc-link && echo pwned >> etc-link; ln -s ${f.outside} out-dir && echo pwned > out-dir/new; rm -f out-link etc-link out-dir`)
        assert.strictEqual(fs.readFileSync(path.join(f.outside, "target"), "utf8"), "original")
        assert.isFalse(fs.existsSync(path.join(f.outside, "new")))
        assert.notInclude(fs.readFileSync("/etc/passwd", "utf8"), "pwned")
        assert.include(r.stderr, "Read-only file system")
      })
    )
  )

  it.live("no network, not even the host's loopback; with network: true the same server is reached", () =>
    Effect.gen(function* () {
      let connections = 0
      const server = yield* Effect.acquireRelease(
        Effect.async<net.Server>((resume) => {
          const s = net.createServer((c) => {
            connections++
            c.end("hello from the host\n")
          })
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void)))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      yield* inSandbox((f) =>
        Effect.gen(function* () {
          const tcp = yield* run(f, `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`)
          assert.notStrictEqual(tcp.exitCode, 0)
          const nodeNet = yield* run(f, `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(3) })"`)
          assert.strictEqual(nodeNet.exitCode, 3)
          const outward = yield* run(f, "exec 3<>/dev/tcp/1.1.1.1/80", { timeoutMs: 5_000 })
          assert.notStrictEqual(outward.exitCode, 0)
          const ifaces = yield* run(f, "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
          assert.strictEqual(ifaces.stdout.trim(), "lo")
          assert.strictEqual(connections, 0)
          const allowed = yield* run(f, `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, { network: true })
          assert.strictEqual(allowed.exitCode, 0)
          assert.include(allowed.stdout, "hello from the host")
          assert.strictEqual(connections, 1)
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live("nothing keeps running after the call, not even a setsid'd daemon; a timeout kills everything", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const r = yield* run(f, "setsid nohup sleep 31.4159 >/dev/null 2>&1 & (sleep 31.4158 &) ; echo started")
        assert.include(r.stdout, "started")
        let left = hostProcesses("sleep 31.415")
        for (let i = 0; i < 20 && left.length > 0; i++) {
          yield* Effect.sleep("50 millis")
          left = hostProcesses("sleep 31.415")
        }
        assert.deepStrictEqual(left, [])
        const started = Date.now()
        const t = yield* run(f, "sleep 27.1828 & sleep 27.1829", { timeoutMs: 500 })
        assert.isTrue(t.timedOut)
        assert.isBelow(Date.now() - started, 5_000)
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(hostProcesses("sleep 27.182"), [])
      })
    )
  )

  it.live("forking past the process limit fails", (ctx) =>
    inSandbox(
      (f) =>
        Effect.gen(function* () {
          const sandbox = yield* Sandbox
          if (sandbox.status._tag === "Available" && !sandbox.status.limits.processLimit) {
            return ctx.skip("the process limit cannot be enforced here: running as root without a writable pids cgroup")
          }
          // perl's fork reports failure at once (bash retries for seconds); the children are left behind on purpose.
          const r = yield* run(f, "perl -e 'my $n = 0; for (1..300) { my $p = fork(); last unless defined $p; if ($p == 0) { sleep 30; exit 0 } $n++ } print \"$n\\n\"'")
          assert.strictEqual(r.exitCode, 0, r.stderr)
          const forked = Number(r.stdout.trim())
          assert.isAbove(forked, 5)
          assert.isBelow(forked, 40)
          yield* Effect.sleep("200 millis")
          assert.deepStrictEqual(hostProcesses("perl -e my $n"), [])
        }),
      { processes: 40, cpuSeconds: 60 }
    )
  )

  it.live("the file-size, memory and CPU limits stop a process, in POSIX mode too; a hard limit cannot be raised", () =>
    inSandbox(
      (f) =>
        Effect.gen(function* () {
          // Past 4 KiB a write fails (SIGXFSZ ignored: EFBIG), so the file holds exactly the limit.
          const write = "trap '' XFSZ; head -c 100000 /dev/zero > big.bin; echo \"exit $?\"; stat -c %s big.bin"
          for (const env of [{}, { POSIXLY_CORRECT: "1" }]) {
            const big = yield* run(f, write, { env })
            assert.deepStrictEqual(big.stdout.trim().split("\n"), ["exit 1", "4096"], big.stderr)
          }
          const mem = yield* run(f, "perl -e '$x = \"a\" x (300 * 1024 * 1024); print \"allocated\\n\"'; echo \"exit $?\"")
          assert.notInclude(mem.stdout, "allocated")
          const cpu = yield* run(f, "ulimit -t; ulimit -Ht")
          assert.deepStrictEqual(cpu.stdout.trim().split("\n"), ["7", "7"])
          // Raising a hard limit again is refused (no CAP_SYS_RESOURCE).
          const raise = yield* run(f, "ulimit -f unlimited && echo raised")
          assert.notInclude(raise.stdout, "raised")
          const lines = yield* run(f, "true\nno-such-command-here")
          assert.include(lines.stderr, "line 2:")
        }),
      { fileSizeBytes: 4096, memoryBytes: 200 * 1024 * 1024, cpuSeconds: 7 }
    )
  )

  it.live("a cwd outside the workspace is refused", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const r = yield* Effect.either(run(f, "pwd", { cwd: f.outside }))
        assert.isTrue(r._tag === "Left" && r.left.reason.includes("outside the workspace"))
      })
    )
  )
})

describe.skipIf(unavailable !== undefined)(title("sandboxed shell: honest work succeeds"), () => {
  it.live("npm test, git status, git commit, make and build output", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const npm = yield* run(f, "npm test")
        assert.strictEqual(npm.exitCode, 0, npm.stderr)
        assert.include(npm.stdout, "fixture tests ok")
        const status = yield* run(f, "echo change >> src/main.txt && git status --short")
        assert.strictEqual(status.exitCode, 0, status.stderr)
        assert.include(status.stdout, "src/main.txt")
        const commit = yield* run(f, "git add src/main.txt && git commit -q -m 'from the sandbox' && git log --oneline | head -1", {
          env: { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" }
        })
        assert.strictEqual(commit.exitCode, 0, commit.stderr)
        assert.include(commit.stdout, "from the sandbox")
        assert.include(git(f.ws, "log", "--oneline").toString(), "from the sandbox")
        const make = yield* run(f, "make && cat build/out.txt")
        assert.strictEqual(make.exitCode, 0, make.stderr)
        assert.strictEqual(fs.readFileSync(path.join(f.ws, "build", "out.txt"), "utf8"), "HELLO\nCHANGE\n")
        const tmp = yield* run(f, "echo scratch > /tmp/x && cat /tmp/x && echo cache > ~/.cache-file && cat ~/.cache-file")
        assert.strictEqual(tmp.stdout, "scratch\ncache\n")
        assert.isFalse(fs.existsSync(path.join(f.home, ".cache-file")))
      })
    )
  )
})

describe.skipIf(unavailable !== undefined)(title("sandbox profile for servers (MCP, LSP): any argv wrapped"), () => {
  it.live("workspace read-only unless asked, secrets masked, no network", () =>
    inSandbox((f) =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox
        const before = hashTree(f.ws)
        const script = "cat src/main.txt; cat .env || echo masked; echo x > src/new.txt || echo read-only; exec 3<>/dev/tcp/127.0.0.1/9 || echo offline"
        const out = yield* Effect.scoped(
          Effect.flatMap(
            sandbox.wrap({ command: ["bash", "-c", script], workspace: f.ws, cwd: f.ws, writable: false, network: false, env: { PATH: "/usr/bin:/bin" } }),
            (w) => NodeShell.spawnExact({ argv: w.argv, env: w.env, cwd: f.ws, timeoutMs: 10_000, maxOutputBytes: 1 << 16 })
          )
        )
        assert.strictEqual(out.stdout, "hello\nmasked\nread-only\noffline\n")
        assert.strictEqual(hashTree(f.ws), before)
      })
    )
  )
})

describe.skipIf(unavailable !== undefined)(title("the bash tool through the chain on NodeAdapters' sandboxed extensions"), () => {
  const permissive = admitAll
  it.live("bash is sandboxed, git tools still work", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fixture
        const adapters = { bashParser: permissive, extensions: NodeAdapters.extensions({ unrestricted: false, sandbox: { mode: "bwrap", bwrap: { hostHome: f.home } } }) }
        const call = (tool: string, args: Record<string, unknown>) => runToolEffect({ workspace: f.ws, workMode: "BUILD", tool, args, adapters })
        const secret = yield* call("bash", { command: "cat .env; echo x > .git/hooks/post-checkout" })
        assert.isTrue(secret.isError)
        assert.notInclude(secret.text, "workspace-secret")
        assert.include(secret.text, "Read-only file system")
        const status = yield* call("git_status", {})
        assert.isFalse(status.isError === true)
      })
    )
  )
})
