import * as MemoryNetGuard from "../../../src/adapters/net/MemoryNetGuard.js"
import { contract } from "../../contracts/NetGuard.contract.js"

contract("memory", {
  make: MemoryNetGuard.make({
    "loop.test": [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }],
    "public.test": [{ address: "93.184.215.14", family: 4 }]
  }),
  loopbackName: "loop.test",
  missingName: "missing.test",
  publicName: "public.test"
})
