/**
 * Red team (issue 19), files that hold passwords by names the jail did not know: PostgreSQL's service file
 * (`.pg_service.conf`, `pg_service.conf` beside a project, `password=`), curl's and wget's defaults (`.curlrc`,
 * `_curlrc`, `.wgetrc`), and histories that keep what was typed (`.viminfo`, `.gdb_history`, `.Rhistory`).
 * read_file, grep and sandboxed bash showed every one of them; a nested copy too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, shownSecrets } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const files: Record<string, string> = {
  ".pg_service.conf": "[prod]\nhost=db\nuser=app\npassword=canary-pg-service\n",
  "config/pg_service.conf": "[prod]\npassword=canary-pg-service-nested\n",
  ".curlrc": 'user = "deploy:canary-curlrc"\n',
  "_curlrc": 'user = "deploy:canary-curlrc-windows"\n',
  ".wgetrc": "password = canary-wgetrc\n",
  ".viminfo": '# Registers:\n"0  LINE  0\n\texport TOKEN=canary-viminfo\n',
  ".gdb_history": "set environment API_KEY=canary-gdb-history\n",
  ".Rhistory": 'Sys.setenv(TOKEN = "canary-rhistory")\n'
}

describe.skipIf(unavailable !== undefined)(title("files that hold passwords by names the jail did not know"), () => {
  it("read_file, grep and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    expect(await shownSecrets(ws, files)).toEqual([])
  })

  it("an honest file beside them is still read", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, "pg_service.example"), "[dev]\nhost=localhost\n")
    expect(ws.tool("read_file", { path: "pg_service.example" }).stdout).toContain("host=localhost")
  })
})
