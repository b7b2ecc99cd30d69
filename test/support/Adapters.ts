/**
 * The adapters most kernel tests run on: the real file system and net guard, an in-memory allowlist and journal, an
 * approver that says no, and explicitly no bash parser, no SQL and no sandbox. `over` replaces any of them.
 */
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../../src/adapters/approval/MemoryAllowlist.js"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as NodeNetGuard from "../../src/adapters/net/NetGuard.js"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import type * as Kernel from "../../src/kernel/Kernel.js"

export const nodeAdapters = <E = never>(over: Partial<Kernel.Adapters<E>> = {}): Kernel.Adapters<E> => ({
  fileSystem: NodeFileSystem.layer,
  allowlist: MemoryAllowlist.layer([]),
  approver: Approvers.constant("no"),
  bashParser: Unavailable.bashParser,
  sql: Unavailable.sql,
  sandboxState: Unavailable.sandboxState,
  textSearch: Unavailable.textSearch,
  searchWorkers: Unavailable.searchWorkers,
  aliases: Unavailable.aliases,
  netGuard: NodeNetGuard.layer,
  journal: MemoryJournal.layer(),
  ...over
})
