import { Context, type Effect } from "effect"

/**
 * Provided by the journal stage around one mutating call: the executor reports when the mutation itself is done,
 * before what only follows it (the diagnostics appended to a write_file/edit_file result). The journal record is
 * then settled at once, so a hung language server or an interrupted diagnostics wait never leaves a write that
 * happened `pending` or `unknown`.
 */
export interface MutationDoneShape {
  readonly done: (outcome: { readonly isError: boolean }) => Effect.Effect<void>
}

export class MutationDone extends Context.Tag("minicode/MutationDone")<MutationDone, MutationDoneShape>() {}
