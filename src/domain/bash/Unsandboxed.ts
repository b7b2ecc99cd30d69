/**
 * What bash may do without asking when no OS sandbox holds it, pure: a parsed command in, `undefined` (nothing
 * here that static analysis cannot know) or one `ask` decision out. The static guard (`BashPolicy`) has already
 * judged the same tree; this is the second, stricter reading for a session whose bash runs on the host. It fails
 * closed where the words alone cannot say what would run:
 *
 * - dynamic words anywhere: `$X`, `${X:-.env}`, `$(…)`, backticks, `<(…)`, quoted text that holds such syntax
 *   (a later `eval` or arithmetic would run it), arithmetic over variable names, globs as command names;
 * - workspace code: a command named by a path (`./x.sh`, `bin/run`), shells and interpreters (`bash x.sh`,
 *   `node a.js`, `python -m x`, inline `-c` programs), build and test runners (`make`, `npm run`, `npx`, `yarn`,
 *   `pnpm`, `cargo`, `pytest`…), `source`/`.`/`eval` and builtins that rebind names or run strings later
 *   (`alias`, `hash -p`, `trap`, `enable`), `PATH` or loader variables set for a command, options that name a
 *   program to run (`tar -I`, `rg --pre`, `rsync -e`), and every wrapper that runs its arguments (`env`, `timeout`,
 *   `xargs`, `find -exec`…), judged on each argument suffix;
 * - git, which reads the repository's configuration (filters, fsmonitor, pager, hooks) on nearly every command.
 *
 * Read-only probes (`--version`, `--help`, `npm ls`…) stay allowed. The kernel asks only where a session has no
 * active sandbox and its policy is not allow-all.
 */
import { type BashAst, type BashNode, field, fields } from "./BashAst.js"
import * as W from "./BashWords.js"
import { ask, type Decision } from "../core/Decision.js"

export interface UnsandboxedContext {
  readonly cwd: string
  readonly home?: string | undefined
  /** Why there is no sandbox (shown in the question). */
  readonly why: string
}

export const Rules = {
  dynamic: "guard.unsandboxed.dynamic",
  workspaceCode: "guard.unsandboxed.workspace-code",
  git: "guard.unsandboxed.git"
} as const

/** The one command that makes the question go away, said in every reason. */
export const installHint = "install bubblewrap (apt-get install bubblewrap) to run bash sandboxed"

/** The one plain sentence doctor, the `mcp serve` instructions and a session's first bash result say. */
export const notice = (why: string): string =>
  `bash runs unsandboxed on this machine (${why}): commands that run workspace code (scripts, make, npm run, npx, interpreters on files, git) or whose words are dynamic ask for approval first; ${installHint}`

type Finding = { readonly rule: string; readonly what: string }

const dynamicKinds = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution"])
/** `$?`, `$#`, `$$`, `$!`, `$-`: the shell's own counters, never a path or a program. */
const harmlessSpecials = /^\$[?#$!-]$/
const quotedCode = /\$\(|\$\{|\$\(\(|`/
const arithmeticOps = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])

const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash", "busybox"])
const interpreter = /^(python[0-9.]*|pypy[0-9.]*|node(js)?[0-9]*|deno|bun|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua(jit)?[0-9.]*|r|rscript|julia|tclsh|wish|groovy|jshell|osascript|pwsh|powershell|expect|guile|racket|sbcl|ghci|runghc|runhaskell|elixir|erl|escript|scala|kotlin|swift|dotnet|java|jrunscript|tsx|ts-node|esno|coffee)$/
/** Runners that execute code the workspace defines (build files, scripts, tests, package hooks). */
const runners = new Set([
  "make", "gmake", "bmake", "cmake", "ninja", "meson", "bazel", "bazelisk", "buck", "just", "task", "rake", "gradle",
  "mvn", "ant", "sbt", "lein", "mix", "rebar3", "stack", "cabal", "dune", "zig", "scons", "waf", "invoke", "fab",
  "npx", "yarn", "yarnpkg", "pnpm", "pnpx", "corepack", "nx", "turbo", "lerna", "jest", "vitest", "mocha", "ava",
  "tap", "karma", "playwright", "cypress", "webpack", "vite", "rollup", "esbuild", "parcel", "tsup", "next", "nuxt",
  "pytest", "py.test", "tox", "nox", "poetry", "pipenv", "uv", "uvx", "pdm", "hatch", "pip", "pip3", "pipx",
  "bundle", "bundler", "rails", "rspec", "composer", "artisan", "phpunit", "cargo", "rustc", "go", "swiftc",
  "pre-commit", "husky", "lefthook", "direnv", "docker", "docker-compose", "podman", "nix", "nix-shell", "gcc", "cc",
  "g++", "clang", "clang++", "ld", "cargo-make",
  // wrappers that hand their arguments to a shell
  "watch", "parallel", "script", "su", "runuser", "systemd-run", "entr", "tmux", "screen", "expect"
])
/** First arguments of runners that only print (a version, help, a listing) and run no workspace code. */
const probeArgs = new Set(["--version", "-v", "-V", "version", "--help", "-h", "help"])
const npmProbes = new Set(["ls", "list", "ll", "la", "view", "info", "show", "v", "outdated", "help", "search", "ping", "whoami", "root", "prefix", "bin", "docs", "repo", "bugs", "fund", "explain", "why", "query"])
const goProbes = new Set(["version", "env", "fmt", "list", "doc", "help", "mod"])
/** Wrappers that run their arguments as a command (each argument suffix is judged as one). */
const wrappers = new Set([
  "env", "nice", "nohup", "timeout", "time", "stdbuf", "setsid", "ionice", "chrt", "taskset", "sudo", "doas", "su",
  "command", "builtin", "exec", "xargs", "flock", "chroot", "unshare", "nsenter", "strace", "ltrace", "gdb",
  "valgrind", "firejail", "prlimit", "cpulimit", "catchsegv", "unbuffer", "faketime", "proot", "fakeroot", "torsocks",
  "proxychains", "proxychains4", "caffeinate"
])
/** Wrappers that are builtins, so what they run may be a builtin too (`builtin source x`, `command eval …`). */
const builtinWrappers = new Set(["command", "builtin", "exec"])
/** find's and fd's options after which the rest of the words are a command to run. */
const findExec = /^(-exec|-execdir|-ok|-okdir|-x|-X|--exec|--exec-batch)$/
/** Builtins that run strings or files now or later, or rebind what a name runs. */
const codeBuiltins = new Set(["source", ".", "eval", "trap", "alias", "enable", "bind", "complete", "compgen", "fc", "read", "readarray", "mapfile", "let", "coproc"])
/** Options that name a program the command runs. */
const programOptions: Readonly<Record<string, RegExp>> = {
  tar: /^(-I|-F|--use-compress-program.*|--to-command.*|--checkpoint-action.*|--info-script.*|--new-volume-script.*|-[A-Za-z]*I)$/,
  rg: /^--pre(=.*)?$/,
  sort: /^--compress-program.*$/,
  rsync: /^(-e|--rsh.*|-[A-Za-z]*e)$/,
  zip: /^(-TT|--unzip-command.*)$/,
  less: /^.*$/,
  man: /^(-P|--pager.*|-H.*|--html.*)$/,
  ssh: /^(-o|-F|-[A-Za-z]*[oF])$/,
  awk: /^(-f|--file.*|-E|--exec.*)$/,
  gawk: /^(-f|--file.*|-E|--exec.*)$/,
  mawk: /^(-f)$/,
  nawk: /^(-f)$/,
  sed: /^(-f|--file.*|-[A-Za-z]*f)$/,
  vim: /^.*$/,
  vi: /^.*$/,
  nvim: /^.*$/,
  emacs: /^.*$/
}
/** Variables that choose what a command name or library resolves to. */
const loaderVar = /^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|PYTHONPATH|PYTHONSTARTUP|NODE_OPTIONS|NODE_PATH|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|GIT_[A-Z_]+|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|IFS)$/
const systemBin = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/

const finding = (rule: string, what: string): Finding => ({ rule, what })

/** The command's words as bash would pass them, or undefined when a word is not known before it runs. */
const argvOf = (node: BashNode, scope: W.Scope): ReadonlyArray<string> | undefined => {
  const words = [field(node, "name"), ...fields(node, "argument")].filter((n): n is BashNode => n !== undefined)
  const out: Array<string> = []
  for (const word of words) {
    if (word.type === "simple_expansion" && harmlessSpecials.test(word.text)) {
      out.push("0")
      continue
    }
    const w = word.type === "command_name" ? word.children.find((c) => c.named) ?? word : word
    const e = W.expand(w, scope)
    if (e.commandSubstitution || e.processSubstitution || e.overflow || e.problem !== undefined) return undefined
    for (const f of e.fields) {
      if (W.hasUnknown(f)) return undefined
      // A glob names files only known when it runs: fine as an argument, never as the program.
      out.push(out.length === 0 && W.hasGlob(f) ? "\uE000" : W.text(f))
    }
  }
  return out
}

const lower = (name: string) => name.toLowerCase()

/** Judges one argv (after wrappers are peeled by the caller's suffix scan). */
const judgeArgv = (argv: ReadonlyArray<string>, depth: number, builtins = true): Finding | undefined => {
  const [raw, ...rest] = argv
  if (raw === undefined || depth > 8) return undefined
  if (!builtins && (codeBuiltins.has(raw) || raw === "hash" || raw === "shopt")) return undefined
  if (raw === "\uE000") return finding(Rules.dynamic, "a command named by a glob")
  if (raw.includes("/") && !systemBin.test(raw)) return finding(Rules.workspaceCode, `\`${raw}\` runs a program named by its path (workspace code)`)
  const name = raw.includes("/") ? raw.slice(raw.lastIndexOf("/") + 1) : raw
  const first = rest[0]
  const probe = rest.length === 1 && first !== undefined && probeArgs.has(first)
  if (name === "git") return probe || first === "help" ? undefined : finding(Rules.git, "`git` reads the repository's configuration and hooks, which can name programs to run")
  if (codeBuiltins.has(name)) return finding(Rules.workspaceCode, `\`${name}\` runs or rebinds code that is not known before it runs`)
  if (name === "hash" && rest.some((a) => a.startsWith("-") && a.includes("p"))) return finding(Rules.workspaceCode, "`hash -p` rebinds what a command name runs")
  if (name === "shopt" && rest.includes("expand_aliases")) return finding(Rules.workspaceCode, "`shopt expand_aliases` lets aliases rebind command names")
  if (shells.has(name) || interpreter.test(lower(name))) {
    return probe ? undefined : finding(Rules.workspaceCode, `\`${name}\` runs a program (a script, a module or inline code) that static analysis cannot judge`)
  }
  if (name === "npm" || name === "bun" || name === "deno") {
    const sub = rest.find((a) => !a.startsWith("-"))
    if (probe || (name === "npm" && sub !== undefined && npmProbes.has(sub) && !rest.includes("--global") && !rest.includes("-g"))) return undefined
    return finding(Rules.workspaceCode, `\`${name}${sub === undefined ? "" : ` ${sub}`}\` can run the workspace's package scripts and lifecycle hooks`)
  }
  if (name === "go" && first !== undefined && (probe || goProbes.has(first))) return undefined
  if (runners.has(name) || name === "go") {
    return probe ? undefined : finding(Rules.workspaceCode, `\`${name}\` runs code the workspace defines (build files, scripts, tests, hooks)`)
  }
  const options = Object.hasOwn(programOptions, name) ? programOptions[name] : undefined
  if (options !== undefined && rest.some((a) => options.test(a))) return finding(Rules.workspaceCode, `\`${name}\` with these options runs a program or script it is given`)
  if (name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") {
    if (rest.some((a) => /system\s*\(|\|/.test(a))) return finding(Rules.workspaceCode, `\`${name}\` runs commands from its program`)
  }
  if (name === "find" || name === "fd" || name === "fdfind") {
    for (let i = 0; i < rest.length; i++) {
      if (!findExec.test(rest[i] ?? "")) continue
      const inner = judgeArgv(rest.slice(i + 1), depth + 1, false)
      if (inner !== undefined) return inner
    }
    return undefined
  }
  if (name === "env" && rest.some((a) => a === "-S" || a.startsWith("--split-string") || /^-[A-Za-z]*S/.test(a))) {
    return finding(Rules.workspaceCode, "`env -S` splits a string into a command line")
  }
  if (wrappers.has(name)) {
    // Whatever follows may be the command the wrapper runs: judge every suffix (over-asks, never under-asks).
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] ?? ""
      if (a.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a)
        if (m?.[1] !== undefined && name === "env" && loaderVar.test(m[1])) return finding(Rules.workspaceCode, `\`env ${m[1]}=…\` changes what programs and libraries resolve to`)
        continue
      }
      const inner = judgeArgv(rest.slice(i), depth + 1, builtinWrappers.has(name))
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

const isNumberLeaf = (n: BashNode): boolean => n.type === "number" || !n.named || n.type === "test_operator"

/** An arithmetic context whose leaves are not all numbers: bash evaluates a name's value there, recursively. */
const arithmeticOverNames = (node: BashNode): boolean => {
  const leaves: Array<BashNode> = []
  const walk = (n: BashNode) => {
    if (n.children.length === 0) leaves.push(n)
    else n.children.forEach(walk)
  }
  walk(node)
  return leaves.some((l) => !isNumberLeaf(l) && !/^[0-9]+$/.test(l.text))
}

const walkFindings = (root: BashNode, ctx: UnsandboxedContext): Finding | undefined => {
  const scope: W.Scope = { vars: new Map(), home: ctx.home, cwd: ctx.cwd, ifsChanged: false }
  let found: Finding | undefined
  const visit = (node: BashNode): void => {
    if (found !== undefined) return
    if (node.type === "ERROR" || node.missing) {
      found = finding(Rules.dynamic, "the command does not parse cleanly, so what it runs is not known")
      return
    }
    if (dynamicKinds.has(node.type) && !(node.type === "simple_expansion" && harmlessSpecials.test(node.text))) {
      found = finding(Rules.dynamic, `\`${node.text.length > 40 ? `${node.text.slice(0, 40)}…` : node.text}\` is only known when the command runs`)
      return
    }
    if ((node.type === "raw_string" || node.type === "ansi_c_string" || node.type === "string_content" || node.type === "heredoc_content") && quotedCode.test(node.text)) {
      found = finding(Rules.dynamic, "quoted text holds shell expansion syntax that a later evaluation would run")
      return
    }
    if (
      node.type === "arithmetic_expansion" ||
      node.type === "c_style_for_statement" ||
      (node.type === "compound_statement" && node.text.startsWith("((")) ||
      (node.type === "binary_expression" && node.children.some((c) => c.type === "test_operator" && arithmeticOps.has(c.text)))
    ) {
      if (arithmeticOverNames(node)) {
        found = finding(Rules.dynamic, "arithmetic over names evaluates their values as code")
        return
      }
    }
    if (node.type === "variable_assignment") {
      const name = field(node, "name")?.text ?? ""
      if (loaderVar.test(name)) {
        found = finding(Rules.workspaceCode, `setting ${name} changes what programs and libraries resolve to`)
        return
      }
    }
    if (node.type === "command") {
      const argv = argvOf(node, scope)
      if (argv === undefined) {
        found = finding(Rules.dynamic, "a word of the command is only known when it runs")
        return
      }
      const judged = judgeArgv(argv, 0)
      if (judged !== undefined) {
        found = judged
        return
      }
    }
    if (node.type === "declaration_command" || node.type === "unset_command") {
      const word = node.children[0]?.text ?? ""
      if (/^(declare|typeset|local|export|readonly)$/.test(word) && node.children.some((c) => /^-[A-Za-z]*[in]/.test(c.text))) {
        found = finding(Rules.dynamic, `\`${word}\` with -i or -n evaluates or aliases names`)
        return
      }
    }
    for (const c of node.children) visit(c)
  }
  visit(root)
  return found
}

/** `undefined` when nothing needs asking; else an `ask` that says why and how to get a sandbox. */
export const judge = (ast: BashAst, ctx: UnsandboxedContext): Decision | undefined => {
  const f = walkFindings(ast.root, ctx)
  if (f === undefined) return undefined
  return ask("guard", f.rule, `bash runs unsandboxed here (${ctx.why}): ${f.what}, so the operator must approve it; ${installHint}`)
}
