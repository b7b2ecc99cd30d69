/**
 * What a retry across a restart is (`McpRetry`): the pure rule, the rule over a real journal (memory and SQLite),
 * and the `mcp serve` core over the real chain and file system, restarted over the same journal.
 */
import { sandboxed } from "../support/Fakes.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Option } from "effect"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as SqliteJournal from "../../src/adapters/journal/SqliteJournal.js"
import { ErrorCodes } from "../../src/domain/mcp/JsonRpcFraming.js"
import * as Scopes from "../../src/domain/mcp/McpScopes.js"
import { admitAll } from "../support/AdmitBash.js"
import { type Intent, Journal, type JournalShape } from "../../src/ports/Journal.js"
import { ToolExecutor } from "../../src/ports/ToolExecutor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as McpRetry from "../../src/serve/McpRetry.js"
import * as McpServe from "../../src/serve/Server.js"
import { sha256 } from "../../src/adapters/crypto/Sha256.js"
import { nodeAdapters } from "../support/Adapters.js"

const hour = 60 * 60 * 1000

describe("McpRetry.judge", () => {
  const at = { startedAt: 10 * hour, now: 10 * hour + 5, windowMs: McpRetry.windowMs }
  const record = (over: Partial<{ createdAt: number; answered: boolean; finalized: boolean; turn: number }>) => ({
    createdAt: 9 * hour,
    answered: false,
    finalized: false,
    turn: 4,
    ...over
  })

  it("a record made since this run started is this run's, answered or not", () => {
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.startedAt }), at), "ThisRun")
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.startedAt + 1, answered: true, finalized: true }), at), "ThisRun")
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.startedAt }), { ...at, ownTurn: Option.some(4) }), "ThisRun")
  })

  it("a record made since this run started in another turn is another server's, beside this one: never a refusal", () => {
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.startedAt }), { ...at, ownTurn: Option.some(5) }), "NewCall")
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.startedAt + 1 }), { ...at, ownTurn: Option.none() }), "NewCall")
    // Before this run started, the turn does not matter: an unanswered record there is a killed run's.
    assert.strictEqual(McpRetry.judge(record({}), { ...at, ownTurn: Option.none() }), "Unanswered")
  })

  it("an earlier run's record is a retry's only when unanswered, unfinalised and within the window", () => {
    assert.strictEqual(McpRetry.judge(record({}), at), "Unanswered")
    assert.strictEqual(McpRetry.judge(record({ answered: true }), at), "NewCall")
    assert.strictEqual(McpRetry.judge(record({ finalized: true }), at), "NewCall")
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.now - McpRetry.windowMs }), at), "Unanswered")
    assert.strictEqual(McpRetry.judge(record({ createdAt: at.now - McpRetry.windowMs - 1 }), at), "NewCall")
    assert.strictEqual(McpRetry.windowMs, 24 * hour)
  })
})

const intent = (turn: number, requestId: string): Intent => ({
  session: McpServe.sessionId,
  turn,
  tool: "bash",
  capability: "exec",
  paths: [],
  canonicalArgs: JSON.stringify({ command: "echo x >> f" }),
  requestId,
  remote: false
})

/** The rule over one journal: runs 1 (killed), 2 (killed) and 3 (ended cleanly), then a fourth run asks. */
const overJournal = (journal: JournalShape) =>
  Effect.gen(function* () {
    const killed = yield* journal.begin(intent(1, "k1"), [])
    const answeredThenKilled = yield* journal.begin(intent(1, "k2"), [])
    yield* journal.complete(answeredThenKilled.id, "committed")
    yield* journal.answered(McpServe.sessionId, "k2")
    // The asking run started after every record so far.
    const verdictOf = (requestId: string) =>
      Effect.flatMap(journal.findByRequest(McpServe.sessionId, requestId), (found) =>
        found._tag === "None"
          ? Effect.succeed("none")
          : McpRetry.answersFor(journal, found.value, { startedAt: Date.now() + 1, now: Date.now() + 1, windowMs: McpRetry.windowMs })
      )
    assert.strictEqual(yield* verdictOf("k1"), "EarlierRun")
    assert.strictEqual(yield* verdictOf("k2"), "NewCall")
    assert.isTrue((yield* journal.list()).find((r) => r.id === answeredThenKilled.id)?.answered)
    assert.isFalse((yield* journal.list()).find((r) => r.id === killed.id)?.answered)
    // Run 2 was killed too: run 1's unanswered call is still a retry's.
    yield* journal.begin(intent(2, "k3"), [])
    assert.strictEqual(yield* verdictOf("k1"), "EarlierRun")
    // Run 3 ended cleanly without retrying it: the session went on, and a later same call is a new one.
    yield* journal.begin(intent(3, "k4"), [])
    yield* journal.finalizeTurn(McpServe.sessionId, 3)
    assert.strictEqual(yield* journal.lastFinalizedTurn(McpServe.sessionId), 3)
    assert.strictEqual(yield* verdictOf("k1"), "NewCall")
    assert.strictEqual(yield* verdictOf("k3"), "NewCall")
  })

describe("McpRetry.answersFor over a journal", () => {
  it.live("memory", () => Effect.flatMap(MemoryJournal.make(), ({ journal }) => overJournal(journal)))

  it.scopedLive("sqlite", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const { journal } = yield* SqliteJournal.make({ dbPath: SqliteJournal.dbPathFor(root) })
      yield* overJournal(journal)
    })
  )
})

const settings = Either.getOrThrow(Scopes.parse([], { allowAll: false, allTools: false }))

const admitBash = admitAll

const workspace = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-retry-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** One server run's core over the real chain; the journal is passed in so a restart keeps it. */
const coreOver = (root: string, journal: JournalShape, retryWindowMs?: number) =>
  Effect.gen(function* () {
    // Another run starts later than the records of the one before (the rule compares milliseconds).
    yield* Effect.sleep("3 millis")
    const chain = yield* Layer.build(
      Kernel.layer(
        { workspace: root, workMode: "BUILD", permissionMode: "AUTO", sessionId: McpServe.sessionId },
        nodeAdapters({ bashParser: admitBash, sandboxState: sandboxed, journal: Layer.succeed(Journal, journal), extensions: Kernel.extensionsOf([]) })
      )
    )
    return yield* McpServe.makeCore({ settings, root, hash: (text) => sha256(text, "base64"), ...(retryWindowMs === undefined ? {} : { retryWindowMs }) }).pipe(
      Effect.provideService(ToolExecutor, Context.get(chain, ToolExecutor)),
      Effect.provideService(Journal, journal)
    )
  })

const text = (o: McpServe.Outcome) => (o._tag === "Result" ? o.result.text : `rpc ${o.code}: ${o.message}`)

describe("mcp serve core across restarts", () => {
  it.scopedLive("an answered call is no retry: the same id and arguments in the next run execute (verified on disk)", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const { journal } = yield* MemoryJournal.make()
      const write = { path: "w.txt", content: "w" }
      const first = yield* coreOver(root, journal)
      const ran = yield* first.call(1, "write_file", write)
      assert.isTrue(ran._tag === "Result" && !ran.result.isError, text(ran))
      yield* first.replied(1)
      fs.rmSync(path.join(root, "w.txt"))
      const second = yield* coreOver(root, journal)
      const again = yield* second.call(1, "write_file", write)
      assert.isTrue(again._tag === "Result" && !again.result.isError, text(again))
      assert.strictEqual(fs.readFileSync(path.join(root, "w.txt"), "utf8"), "w")
      // Within one connection the id is still an idempotency key, answered or not.
      fs.rmSync(path.join(root, "w.txt"))
      yield* second.replied(1)
      assert.deepStrictEqual(yield* second.call(1, "write_file", write), again)
      assert.isFalse(fs.existsSync(path.join(root, "w.txt")))
      assert.isTrue((yield* journal.list()).every((r) => r.answered))
    })
  )

  it.scopedLive("an unanswered call is answered once from the journal; that answer, once written, ends it", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const { journal } = yield* MemoryJournal.make()
      const write = { path: "w.txt", content: "w" }
      // Run 1 wrote the file and was killed before its reply was written: `replied` never came.
      yield* (yield* coreOver(root, journal)).call(7, "write_file", write)
      fs.rmSync(path.join(root, "w.txt"))
      const second = yield* coreOver(root, journal)
      const verdict = yield* second.call(7, "write_file", write)
      assert.isTrue(verdict._tag === "RpcError" && verdict.code === ErrorCodes.AlreadyHandled)
      assert.include(text(verdict), "executed successfully; it is not executed again")
      assert.isFalse(fs.existsSync(path.join(root, "w.txt")))
      // Killed again before that verdict was written: the next run still answers it from the journal.
      const third = yield* coreOver(root, journal)
      assert.deepStrictEqual(yield* third.call(7, "write_file", write), verdict)
      yield* third.replied(7)
      const fourth = yield* coreOver(root, journal)
      const fresh = yield* fourth.call(7, "write_file", write)
      assert.isTrue(fresh._tag === "Result" && !fresh.result.isError, text(fresh))
      assert.isTrue(fs.existsSync(path.join(root, "w.txt")))
    })
  )

  it.scopedLive("past the window an unanswered call of an earlier run is a new call", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const { journal } = yield* MemoryJournal.make()
      const write = { path: "w.txt", content: "w" }
      yield* (yield* coreOver(root, journal)).call(7, "write_file", write)
      fs.rmSync(path.join(root, "w.txt"))
      yield* Effect.sleep("10 millis")
      const late = yield* coreOver(root, journal, 5)
      const ran = yield* late.call(7, "write_file", write)
      assert.isTrue(ran._tag === "Result" && !ran.result.isError, text(ran))
      assert.isTrue(fs.existsSync(path.join(root, "w.txt")))
    })
  )

  it.scopedLive("a read-only call leaves nothing to answer for and is never refused", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "r.txt"), "hello\n")
      const { journal } = yield* MemoryJournal.make()
      yield* (yield* coreOver(root, journal)).call(3, "read_file", { path: "r.txt" })
      assert.deepStrictEqual(yield* journal.list(), [])
      assert.include(text(yield* (yield* coreOver(root, journal)).call(3, "read_file", { path: "r.txt" })), "hello")
    })
  )
})
