import * as MemoryJournal from "../../src/adapters/MemoryJournal.js"
import { journalContract } from "../contracts/Journal.contract.js"

journalContract("MemoryJournal", (options) => MemoryJournal.layer(options))
