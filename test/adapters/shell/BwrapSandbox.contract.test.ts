/**
 * The Sandbox contract on bubblewrap (skipped with the reason where it cannot run, as test/support/Sandbox.ts
 * decides) and on the same adapter without a bwrap program, which must say why and refuse every wrap. The other
 * "none" in the program is no Sandbox at all (SandboxedShell's mode "none" never asks for one): nothing to contract.
 */
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import * as WatchedScan from "../../../src/adapters/shell/WatchedScan.js"
import { contract } from "../../contracts/Sandbox.contract.js"
import { unavailable } from "../../support/Sandbox.js"

contract("bwrap", {
  make: (home) => BwrapSandbox.make({ hostHome: home, scan: WatchedScan.make({ watch: false, settleMs: 20 }) }),
  usable: true,
  skip: unavailable
})

contract("bwrap not installed", {
  make: (home) => BwrapSandbox.make({ hostHome: home, bwrap: "/nonexistent/minicode-test/bwrap" }),
  usable: false
})

