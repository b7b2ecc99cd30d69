import * as NetGuard from "../../../src/adapters/net/NetGuard.js"
import { contract } from "../../contracts/NetGuard.contract.js"

// Real DNS: `localhost` resolves locally, `.invalid` never resolves (RFC 6761); no public name without the network.
contract("node", { make: NetGuard.make(), loopbackName: "localhost", missingName: "minicode-contract.invalid" })
