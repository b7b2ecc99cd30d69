/**
 * A bash parser that reads every command as `true`, so the real judge allows it: for tests of what runs after
 * the guard (the sandbox, the executor, serve's admission) with commands the guard would refuse or that need no
 * real parse. Only the parser adapter is swapped; the Guard stage and its judge are the shipped ones.
 */
import { Effect, Layer } from "effect"
import type { BashAst } from "../../src/domain/bash/BashAst.js"
import { BashParser } from "../../src/ports/BashParser.js"

const word = { type: "word", named: true, missing: false, start: 0, end: 4, text: "true", children: [] }
const name = { type: "command_name", named: true, missing: false, field: "name", start: 0, end: 4, text: "true", children: [word] }
const command = { type: "command", named: true, missing: false, start: 0, end: 4, text: "true", children: [name] }
export const trueTree: BashAst = { source: "true", root: { type: "program", named: true, missing: false, start: 0, end: 4, text: "true", children: [command] } }

export const admitAll = Layer.succeed(BashParser, BashParser.of({ parse: () => Effect.succeed(trueTree) }))
