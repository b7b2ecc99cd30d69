import * as MemoryJournal from "../../../src/adapters/journal/MemoryJournal.js"
import { journalContract } from "../../contracts/Journal.contract.js"

journalContract("MemoryJournal", (options) => MemoryJournal.layer(options))
