import { Effect } from "effect"
import * as MemoryAllowlist from "../../../src/adapters/approval/MemoryAllowlist.js"
import { contract } from "../../contracts/Allowlist.contract.js"

contract("memory", { make: (configured) => Effect.map(MemoryAllowlist.make(configured), (store) => ({ store })) })
