import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import * as NodeShell from "../../../src/adapters/shell/NodeShell.js"
import { contract } from "../../contracts/Shell.contract.js"

contract("node", {
  make: Effect.map(NodeShell.make({ unrestricted: false }), (shell) => ({
    shell,
    cwd: fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-shell-")))
  }))
})
