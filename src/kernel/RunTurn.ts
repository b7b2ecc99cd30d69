import { Effect, Option, Ref } from "effect"
import { Journal, type JournalShape } from "../ports/Journal.js"

/**
 * One run's turn of a session (a server run of `mcp serve`, a CLI call), numbered after the last one the journal
 * has when the run first writes: its first record comes after every gate let the call through, so a run that only
 * reads, or whose calls were refused, never opens the journal (issue 42). The turn is finalised when the run ends
 * cleanly, so the journal's retention keeps the last runs and prunes older ones, and `minicode undo --session S
 * --turn N` restores what one run changed. (A run that crashed leaves its turn unfinalised: kept, and shown by
 * `minicode recover`; a retry of a call `mcp serve` never answered is answered from the journal, see `McpRetry`.)
 */
export const runTurn = (journal: JournalShape, sessionId: string) =>
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

