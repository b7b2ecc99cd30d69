/**
 * One suite for every BashParser adapter: the tree is faithful to the source (offsets, kinds, fields the judge
 * reads), syntax errors come back as error nodes or a typed parse failure, and nothing ever throws or dies.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { type BashNode, field, firstError } from "../../src/domain/bash/BashAst.js"
import type { BashParserShape } from "../../src/ports/BashParser.js"

export interface Fixture {
  readonly make: Effect.Effect<BashParserShape>
}

const all = (node: BashNode): ReadonlyArray<BashNode> => [node, ...node.children.flatMap(all)]
const ofType = (node: BashNode, type: string) => all(node).filter((n) => n.type === type)

export const contract = (name: string, fixture: Fixture) =>
  describe(`BashParser contract: ${name}`, () => {
    // one parser per test, as the layer builds one per kernel
    const withParser = <A>(f: (parse: BashParserShape["parse"]) => Effect.Effect<A, unknown>) =>
      Effect.flatMap(fixture.make, (p) => f(p.parse))

    it.effect("a simple command: name and arguments, offsets slice the source", () =>
      withParser((parse) => Effect.gen(function* () {
        const ast = yield* parse("ls -la src")
        assert.strictEqual(ast.source, "ls -la src")
        assert.isUndefined(firstError(ast.root))
        const [command] = ofType(ast.root, "command")
        assert.isDefined(command)
        assert.strictEqual(field(command!, "name")?.text, "ls")
        for (const n of all(ast.root)) assert.strictEqual(ast.source.slice(n.start, n.end), n.text)
      })))

    it.effect("pipelines and lists keep their commands and operators", () =>
      withParser((parse) => Effect.gen(function* () {
        const ast = yield* parse("cat a | grep x && echo ok || echo no")
        assert.strictEqual(ofType(ast.root, "pipeline").length, 1)
        assert.deepStrictEqual(ofType(ast.root, "command").map((c) => field(c, "name")?.text), ["cat", "grep", "echo", "echo"])
        assert.isTrue(all(ast.root).some((n) => !n.named && n.type === "&&"))
      })))

    it.effect("redirections name their operator and destination", () =>
      withParser((parse) => Effect.gen(function* () {
        const ast = yield* parse("echo hi > out.txt 2>> err.log < in.txt")
        const redirects = ofType(ast.root, "file_redirect")
        assert.strictEqual(redirects.length, 3)
        assert.deepStrictEqual(redirects.map((r) => field(r, "destination")?.text), ["out.txt", "err.log", "in.txt"])
      })))

    it.effect("command and process substitutions are nodes of their own", () =>
      withParser((parse) => Effect.gen(function* () {
        const ast = yield* parse("echo $(whoami) `id` <(cat /etc/hosts)")
        assert.strictEqual(ofType(ast.root, "command_substitution").length, 2)
        assert.strictEqual(ofType(ast.root, "process_substitution").length, 1)
      })))

    it.effect("heredocs keep their body", () =>
      withParser((parse) => Effect.gen(function* () {
        const ast = yield* parse("cat <<EOF > f\nsecret $HOME\nEOF\n")
        assert.strictEqual(ofType(ast.root, "heredoc_redirect").length, 1)
        assert.isTrue(ofType(ast.root, "heredoc_body").some((b) => b.text.includes("secret")))
      })))

    it.effect("syntax errors are reported (error nodes or a typed failure), never thrown", () =>
      withParser((parse) => Effect.gen(function* () {
        for (const bad of ["echo 'unterminated", "if then fi", "(((", "echo $(", "a && && b"]) {
          const exit = yield* Effect.exit(parse(bad))
          if (Exit.isFailure(exit)) {
            const failed = yield* Effect.either(parse(bad))
            assert.isTrue(Either.isLeft(failed) && failed.left._tag === "BashParseError", bad)
          } else assert.isDefined(firstError(exit.value.root), bad)
        }
      })))

    it.effect("very long input parses or fails as a typed error, never dies", () =>
      withParser((parse) => Effect.gen(function* () {
        const long = Array.from({ length: 5_000 }, (_, i) => `echo ${i}`).join(" && ")
        const deep = "$(".repeat(3_000) + "x" + ")".repeat(3_000)
        for (const command of [long, deep, "x".repeat(200_000)]) {
          const result = yield* Effect.either(parse(command))
          if (Either.isRight(result)) assert.strictEqual(result.right.source, command)
          else assert.strictEqual(result.left._tag, "BashParseError")
        }
      })))
  })
