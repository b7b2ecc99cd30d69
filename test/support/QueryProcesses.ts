/** The SQLite query processes (SqliteChildScript) running on this machine, read from /proc (Linux). */
import * as fs from "node:fs"

export interface QueryProcess {
  readonly pid: number
  readonly ppid: number
}

const stat = (pid: string): QueryProcess | undefined => {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
    if (!cmdline.includes("minicode-sqlite-query")) return undefined
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    if (fields[0] === "Z") return undefined // a zombie has ended; only its exit status is left
    return { pid: Number(pid), ppid: Number(fields[1]) }
  } catch {
    return undefined // gone while we looked
  }
}

/** Query processes whose parent is `parent` (default: this process). */
export const children = (parent: number = process.pid): ReadonlyArray<QueryProcess> =>
  fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    const p = stat(d)
    return p !== undefined && p.ppid === parent ? [p] : []
  })

export const alive = (pid: number): boolean => stat(String(pid)) !== undefined
