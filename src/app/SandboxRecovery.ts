/**
 * `minicode sandbox recover <workspace>`: run by the guardian a process starts at its first writable sandboxed call
 * (`adapters/shell/Recovery`), once that process ended with a call's record left (killed, hung up): what the call's
 * end would have put back (planted editor controls, git hooks) is put back now. Harmless to run by hand: while
 * writable calls of live processes run, only what any call's end puts back is.
 */
import * as path from "node:path"
import { Effect } from "effect"
import * as Recovery from "../adapters/shell/Recovery.js"

export const main = (args: ReadonlyArray<string>): Effect.Effect<void> => {
  const workspace = args[0]
  return workspace === undefined || !path.isAbsolute(workspace) ? Effect.void : Recovery.recover(path.normalize(workspace))
}
