import { describe, expect, it } from "vitest"
import * as Summary from "../../../src/domain/journal/Summary.js"

describe("journal summary", () => {
  it("is a bash call's command, redacted: tokens, secret-looking assignments and flags, URL passwords", () => {
    expect(Summary.of({ tool: "bash", args: { command: "make test" } })).toBe("make test")
    expect(Summary.redactCommand("PGPASSWORD=hunter2 psql 'postgres://me:s3cret@db/x' --api-key 'abc def' MY_TOKEN=\"x y\" ls")).toBe(
      "PGPASSWORD=[redacted] psql 'postgres://me:[redacted]@db/x' --api-key [redacted] MY_TOKEN=[redacted] ls"
    )
    expect(Summary.redactCommand(`curl -H "Authorization: Bearer ${"x".repeat(30)}"`)).toContain("[redacted: bearer token]")
    // Words that merely contain a secret-looking name stay.
    expect(Summary.redactCommand("git log --oneline KEYWORDS=1")).toBe("git log --oneline KEYWORDS=1")
  })

  it("is cut to its maximum, and other tools have none", () => {
    const long = Summary.redactCommand(`echo ${"a".repeat(2000)}`)
    expect(long.length).toBe(Summary.maxChars)
    expect(long.endsWith("…")).toBe(true)
    expect(Summary.of({ tool: "read_file", args: { path: "a" } })).toBeUndefined()
  })
})
