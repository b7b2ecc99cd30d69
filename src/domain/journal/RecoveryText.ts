/**
 * What `minicode recover` says of each open item, one sentence: what the call was, why its outcome is not known
 * (or what is known), and the command that settles it. Pure; the plan itself (`Recovery.plan`) decides nothing
 * here.
 */
import type { RecoveryItem } from "./Recovery.js"

/** What the journal record adds: its note (why it ended as it did) and its summary (bash: the command). */
export interface RecordDetail {
  readonly note: string | null
  readonly summary?: string | undefined
  /** Set on the records of an undo or redo run (the run's own, and one per file it restored). */
  readonly restores?: { readonly action: "undo" | "redo"; readonly session: string; readonly turn: number } | null | undefined
  /** The pid of the live process that wrote the record and is still the same process: its call is still running. */
  readonly running?: number | undefined
}

/** A record whose call is still running in a live process (an `mcp serve` mid-call): not killed, not yet known. */
export const running = (item: RecoveryItem, detail: RecordDetail | undefined): boolean =>
  detail?.running !== undefined && item.state === "pending" && item.resolution === null && item.classification !== "done"


const list = (paths: ReadonlyArray<string>) => paths.join(", ")

const what = (item: RecoveryItem, detail: RecordDetail | undefined): string => {
  const tool = item.tool ?? "a call"
  const command = detail?.summary === undefined ? "" : ` \`${detail.summary}\``
  const on = item.paths.length > 0 && command === "" ? ` on ${list(item.paths)}` : ""
  const where = item.session === null ? "" : ` (turn ${item.session}/${item.turn})`
  return `${item.seq === null ? "" : `#${item.seq} `}${tool}${command}${on}${where}`
}

/** Why a pending or unknown record has no outcome. */
const why = (item: RecoveryItem, detail: RecordDetail | undefined): string => {
  const note = detail?.note ?? null
  if (item.state === "pending") return "never recorded an outcome: the process running it stopped first (killed, crashed, or the machine went down)"
  if (note !== null && note.startsWith("interrupted")) return "was interrupted while it ran (Ctrl-C, SIGTERM or a cancelled request), so it may have done part of its work"
  return `ended without a clear outcome${note === null ? "" : ` (${note})`}`
}

const resolveBoth = (seq: number) => `\`minicode recover resolve ${seq} applied\` if it happened, \`minicode recover resolve ${seq} absent\` if not`

/**
 * An undo or redo run stopped part-way: its own record (every path it was to restore) and one per file. Finishing the
 * run is the way to settle them (it accepts the files already restored, and settles the earlier run's records).
 */
const restoreText = (item: RecoveryItem, restores: NonNullable<RecordDetail["restores"]>): string | undefined => {
  const seq = item.seq === null ? "" : `#${item.seq} `
  const turn = `turn ${restores.session}/${restores.turn}`
  const again = (action: "undo" | "redo") => `\`minicode ${action} --session ${restores.session} --turn ${restores.turn}\``
  const other = restores.action === "undo" ? "redo" : "undo"
  const finish = `run ${again(restores.action)} to finish it (files already restored are skipped), or ${again(other)} to take it back`
  if (item.classification === "done") return `${seq}${restores.action} of ${list(item.paths)} (${turn}) was done and recorded.`
  if (item.classification !== "verify") return undefined
  return item.tool === restores.action
    ? `${seq}${restores.action} of ${turn} stopped before it finished (${item.state === "pending" ? "the process was stopped" : "it was interrupted or failed"}): of ${list(item.paths)}, the files with a "was done" line here are restored and the others are as they were; ${finish}.`
    : `${seq}${restores.action} of ${list(item.paths)} (${turn}) stopped while on that file: it is either as it was or restored, never half-written; ${finish}.`
}

/** One sentence for one item of the plan. */
export const explain = (item: RecoveryItem, detail?: RecordDetail): string => {
  const restoring = detail?.restores === undefined || detail.restores === null || item.resolution !== null ? undefined : restoreText(item, detail.restores)
  if (restoring !== undefined) return restoring
  const subject = what(item, detail)
  if (running(item, detail)) {
    return `${subject} is still running in process ${detail?.running} (it was not killed): its outcome is not known yet; let it finish, then run \`minicode recover\` again.`
  }
  const look = item.paths.length > 0 ? `look at ${list(item.paths)}` : detail?.summary !== undefined ? "look at what that command changes" : "look at what it would have changed"
  if (item.resolution === "applied") return `${subject} was resolved by a human as applied: nothing to do, and it is not to be repeated.`
  if (item.resolution === "absent") return `${subject} was resolved by a human as absent: it did not happen, and it may be retried after a look.`
  switch (item.classification) {
    case "done":
      return `${subject} finished and was recorded: nothing to do.`
    case "failed":
      return `${subject} failed${detail?.note === null || detail?.note === undefined ? "" : ` (${detail.note})`} and left nothing behind: it may be retried after a look; \`minicode recover resolve ${item.seq} absent\` records that you checked.`
    case "read-back":
      return item.state === "committed"
        ? `${subject} ran on an MCP server, which said it succeeded, but only the server knows what it did: read its state back, then run \`minicode recover resolve ${item.seq} applied\` (or \`absent\` if it did not happen).`
        : `${subject} ran on an MCP server and ${why(item, detail)}; only the server knows whether it acted: ask it, then run ${resolveBoth(item.seq ?? 0)}.`
    case "verify":
      return `${subject} ${why(item, detail)}: ${look}, then run ${resolveBoth(item.seq ?? 0)}.`
    case "ambiguous":
      return item.seq === null
        ? `${item.advice.replace(/^the journal/, "The journal")}; there is no single record to resolve: \`minicode journal\` lists the recent calls.`
        : `${subject}: ${item.advice}; once you know, run ${resolveBoth(item.seq)}.`
  }
}

/**
 * Whether an item still waits for a person: its outcome is unknown (verify, read-back, a damaged journal) and
 * nobody resolved it. A failed call's outcome is known (it left nothing), and so is a resolved one's.
 */
export const open = (item: RecoveryItem): boolean =>
  item.resolution === null && (item.classification === "verify" || item.classification === "read-back" || item.classification === "ambiguous")
