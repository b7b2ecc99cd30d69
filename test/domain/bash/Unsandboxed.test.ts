/**
 * The unsandboxed reading of a bash command, over trees from the real tree-sitter-bash parser: what runs
 * workspace code or is only known at run time asks; plain commands pass. Each family in several shapes.
 */
import { describe, expect, it } from "vitest"
import { loadParser } from "../../../src/adapters/treesitter/TreeSitterBashParser.js"
import * as Unsandboxed from "../../../src/domain/bash/Unsandboxed.js"

const parse = loadParser()
const judge = (command: string) => {
  const ast = parse(command)
  if (ast === undefined) throw new Error(`no tree for ${command}`)
  return Unsandboxed.judge(ast, { cwd: "/ws", home: "/home/u", why: "bwrap not found" })
}

const asks = {
  [Unsandboxed.Rules.dynamic]: [
    "cat ${X:-.env}", "cat $F", "$CMD", "${CMD} a", "echo $(id)", "echo `id`", "cat <(cat .env)", "cd $HOME && ls",
    "x='$(id)'; eval x", "X=$(pwd) ls", "cat <<EOF\n$(id)\nEOF", "[[ -f $x ]]", "x=1; (( x ))", "[[ x -eq 0 ]]",
    "for ((i=0;i<n;i++)); do :; done", "echo $((n+1))", "./*.sh", "for f in *.sh; do ./$f; done", "ls | xargs $X",
    "printf '%s' '${HOME}'", "declare -n r=x", "{./x.sh,}", "echo \"a$(b)c\""
  ],
  [Unsandboxed.Rules.workspaceCode]: [
    "./x.sh", "bin/run", "sub/dir/tool --flag", "/tmp/x", "'./x.sh'", "\\./x.sh", "./{x,y}.sh", "bash x.sh", "sh -c 'ls'",
    "cat x | sh", "zsh", "source env.sh", ". ./env.sh", "eval ls", "make", "make -j4 all", "gmake", "cmake --build .",
    "npm run build", "npm test", "npm install", "npm ci", "npm exec foo", "npx tsc", "yarn", "yarn build", "pnpm i",
    "bun run x", "deno run a.ts", "node a.js", "node -e 'x'", "nodejs a.js", "python x.py", "python3 -m pytest",
    "python3 -c 'print(1)'", "perl x.pl", "ruby x.rb", "php artisan", "pytest", "tox", "cargo test", "cargo build",
    "go run .", "go test ./...", "go generate", "mvn test", "gradle build", "rake", "bundle exec rspec", "tsx a.ts",
    "timeout 5 ./x.sh", "env ./x.sh", "env -i PATH=/usr/bin make", "nice -n 5 make", "nohup node a.js &",
    "sudo -u me ./x", "xargs -n1 sh", "find . -exec ./x {} \\;", "find . -name '*.sh' -exec bash {} +",
    "fd -x python", "command ./x", "builtin source x", "exec ./x", "watch ls", "parallel echo ::: a",
    "PATH=.:/usr/bin ls", "export PATH=/ws/bin:/usr/bin", "LD_PRELOAD=./x.so ls", "env LD_PRELOAD=./x.so ls",
    "NODE_OPTIONS=--require=./x.js tsc", "alias ls=./x", "hash -p ./x ls", "shopt -s expand_aliases", "trap ./x EXIT",
    "enable -f ./x.so x", "tar -I ./x -cf a.tar .", "tar --to-command=./x -xf a.tar", "rg --pre ./x foo",
    "rsync -e ./x a b", "awk -f prog.awk f", "awk 'BEGIN{system(\"id\")}'", "sed -f s.sed f", "less f", "vim f",
    "env -S 'sh -c id'", "read x < f", "mapfile a < f", "ls && ./x.sh", "true || make", "f() { ./x; }; f",
    "( cd sub && make )", "{ ./a; }", "if true; then ./x; fi", "/usr/bin/env ./x.sh", "/usr/bin/make", "docker build ."
  ],
  [Unsandboxed.Rules.git]: ["git status", "git diff", "git log -1", "git commit -m x", "git -C sub status", "/usr/bin/git status", "env git status", "timeout 5 git fetch"]
}

const allowed = [
  "ls", "ls -la src", "cat README.md", "echo hi", "echo $?", "grep -rn foo src", "rg foo", "head -5 a.txt", "wc -l a b",
  "mkdir -p d && touch d/x", "cp a b", "mv a b", "rm -f x", "find ./src -name '*.ts'", "find . -type f | wc -l",
  "sort a | uniq -c", "diff a b", "tsc --version", "node --version", "python3 --version", "git --version", "npm ls",
  "npm view effect", "go version", "make --version", "cargo --version", "X=1 ls", "test -f a && echo y", "pwd",
  "date", "/usr/bin/ls -l", "jq .a f.json", "sed -n 1,5p f", "awk '{print $1}' f", "tar -czf a.tgz src",
  "echo 'plain text'", "ls *.ts", "cat a > b", "nice -n 5 ls", "timeout 5 cat a", "xargs -n1 echo", "du -sh ."
]

describe("unsandboxed bash asks where static analysis cannot know", () => {
  for (const [rule, commands] of Object.entries(asks)) {
    for (const command of commands) {
      it(`asks (${rule}): ${JSON.stringify(command)}`, () => {
        const d = judge(command)
        expect(d?.decision).toBe("ask")
        expect(d?.rule).toBe(rule)
        expect(d?.reason).toContain("apt-get install bubblewrap")
        expect(d?.reason).toContain("bwrap not found")
      })
    }
  }
  for (const command of allowed) {
    it(`passes: ${JSON.stringify(command)}`, () => {
      expect(judge(command)).toBeUndefined()
    })
  }
  it("the notice names the install command", () => {
    expect(Unsandboxed.notice("bwrap not found")).toMatch(/unsandboxed on this machine.*bwrap not found.*apt-get install bubblewrap/)
  })
})
