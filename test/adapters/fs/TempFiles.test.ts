/**
 * Issue 40, item 11: the sweep of the temporary files a killed write leaves (`.NAME.PID-HEX8.minicode-tmp`). Only
 * minicode's own, matched exactly: the name of a path the journal holds open, a writer that is gone, a regular file
 * with one link. Real files; the decoys an attacker (or chance) would plant are left.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, FastCheck } from "effect"
import * as TempFiles from "../../../src/adapters/fs/TempFiles.js"

/** The id of a process that has ended (ids are not reused this soon). */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
  return Number(r.stdout)
}

const NameArb = FastCheck.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,30}$/)

describe("TempFiles", () => {
  it.effect.prop("a temporary name is told apart exactly: its writer's id, for its own file's name only", { name: NameArb, other: NameArb, pid: FastCheck.integer({ min: 1, max: 4_000_000 }) }, ({ name, other, pid }) =>
    Effect.sync(() => {
      const temp = TempFiles.tempName(name, pid)
      assert.strictEqual(TempFiles.writerOf(temp, name), pid)
      if (other !== name && !temp.startsWith(`.${other}.`)) assert.isUndefined(TempFiles.writerOf(temp, other))
      for (const near of [temp.toUpperCase(), temp.replace(/-([0-9a-f]{8})/, "-$1a"), temp.replace(/\.minicode-tmp$/, ".minicode-tmp~"), `x${temp}`, temp.slice(1), temp.replace(`.${pid}-`, `.0${pid}-`)]) {
        if (near !== temp) assert.isUndefined(TempFiles.writerOf(near, name), near)
      }
    })
  )

  it("names that look similar are not temporary files", () => {
    const table: ReadonlyArray<readonly [string, number | undefined]> = [
      [".a.txt.123-deadbeef.minicode-tmp", 123],
      [".a.txt.123-DEADBEEF.minicode-tmp", undefined],
      [".a.txt.123-deadbee.minicode-tmp", undefined],
      [".a.txt.0123-deadbeef.minicode-tmp", undefined],
      [".a.txt.-deadbeef.minicode-tmp", undefined],
      ["a.txt.123-deadbeef.minicode-tmp", undefined],
      [".a.txt.123-deadbeef.minicode-tmp.bak", undefined],
      [".a.txt.5c1b3a2e-9f0d.minicode-tmp", undefined], // an older minicode's name (no writer in it): left
      [".b.txt.123-deadbeef.minicode-tmp", undefined]
    ]
    for (const [entry, pid] of table) assert.strictEqual(TempFiles.writerOf(entry, "a.txt"), pid, entry)
  })

  it("sweep removes a dead writer's temporary file beside an open path, and nothing an attacker or a user planted", () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-tempfiles-")))
    try {
      const root = path.join(base, "ws")
      fs.mkdirSync(path.join(root, "src"), { recursive: true })
      const precious = path.join(base, "precious.txt")
      fs.writeFileSync(precious, "precious\n")
      fs.writeFileSync(path.join(root, "keep.txt"), "user's\n")
      const dead = deadPid()
      const own = `.a.txt.${dead}-0123abcd.minicode-tmp`
      const nested = `.n.txt.${dead}-89abcdef.minicode-tmp`
      fs.writeFileSync(path.join(root, own), "half a write")
      fs.writeFileSync(path.join(root, "src", nested), "half")
      const decoys = {
        // A link named so, to a file outside: the link is not a file of ours (and unlink would not follow it anyway).
        link: `.a.txt.${dead}-11111111.minicode-tmp`,
        // A hard link to the user's file under such a name.
        hard: `.a.txt.${dead}-22222222.minicode-tmp`,
        // A live writer's (this process): in the middle of its write.
        live: `.a.txt.${process.pid}-33333333.minicode-tmp`,
        // Beside a path the journal does not hold open.
        other: `.b.txt.${dead}-44444444.minicode-tmp`,
        // Near misses of the name.
        upper: `.a.txt.${dead}-ABCDEF12.minicode-tmp`,
        folder: `.a.txt.${dead}-55555555.minicode-tmp.d`
      }
      fs.symlinkSync(precious, path.join(root, decoys.link))
      fs.linkSync(path.join(root, "keep.txt"), path.join(root, decoys.hard))
      for (const name of [decoys.live, decoys.other, decoys.upper]) fs.writeFileSync(path.join(root, name), "x")
      fs.mkdirSync(path.join(root, decoys.folder))
      // A folder of an open path that is now a link leading outside: not entered.
      const outside = path.join(base, "outside")
      fs.mkdirSync(outside)
      const outsideTemp = `.o.txt.${dead}-66666666.minicode-tmp`
      fs.writeFileSync(path.join(outside, outsideTemp), "outside")
      fs.symlinkSync(outside, path.join(root, "linked"))

      const removed = TempFiles.sweep(root, ["a.txt", "src/n.txt", "linked/o.txt", "../x/a.txt", "/etc/a.txt"])
      assert.deepStrictEqual([...removed].sort(), [own, `src/${nested}`].sort())
      assert.isFalse(fs.existsSync(path.join(root, own)))
      for (const name of Object.values(decoys)) assert.isTrue(fs.lstatSync(path.join(root, name), { throwIfNoEntry: false }) !== undefined, name)
      assert.strictEqual(fs.readFileSync(precious, "utf8"), "precious\n")
      assert.strictEqual(fs.readFileSync(path.join(root, "keep.txt"), "utf8"), "user's\n")
      assert.isTrue(fs.existsSync(path.join(outside, outsideTemp)))
    } finally {
      fs.rmSync(base, { recursive: true, force: true })
    }
  })
})
