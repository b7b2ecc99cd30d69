import { Effect, Option, Ref } from "effect"
import { Journal, type JournalShape } from "../ports/Journal.js"

/** The session of `mcp serve`'s runs. */
export const sessionId = "mcp-server"

/**
 * A server run is one turn of session `mcp-server`, numbered after the last one the journal has, when the run first
 * writes (a run that only reads never opens the journal). The turn is finalised when the run ends cleanly, so the
 * journal's retention keeps the last runs and prunes older ones, and `minicode undo --session mcp-server --turn N`
 * restores what one run changed. (A run that crashed leaves its turn unfinalised, as the CLI's would be: kept, and
 * shown by `minicode recover`; a retry of a call it never answered is answered from the journal, see `McpRetry`.)
 */
export const runTurn = (journal: JournalShape) =>
  Effect.gen(function* () {
    const turn = yield* Ref.make(Option.none<number>())
    const assigned = Effect.flatMap(Ref.get(turn), (found) =>
      Option.isSome(found)
        ? Effect.succeed(found.value)
        : Effect.flatMap(journal.lastTurn(sessionId), (last) =>
            // Concurrent first writes agree: the first to set it wins, and the others take its number.
            Ref.modify(turn, (now) => (Option.isSome(now) ? [now.value, now] : [last + 1, Option.some(last + 1)]))
          )
    )
    return {
      turn: Ref.get(turn),
      journal: Journal.of({
        ...journal,
        begin: (intent, snapshots, intended) =>
          Effect.flatMap(assigned, (n) => journal.begin(intent.session === sessionId ? { ...intent, turn: n } : intent, snapshots, intended))
      }),
      finalize: Effect.flatMap(Ref.get(turn), (found) =>
        Option.isSome(found) ? Effect.ignore(journal.finalizeTurn(sessionId, found.value)) : Effect.void
      )
    }
  })

