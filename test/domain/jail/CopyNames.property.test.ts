/**
 * Properties of the jail's copy names (issue 19): a protected name under any stack of the decorations editors,
 * backup and merge tools, sync clients, file managers and browsers give a copy stays protected, in any letter case;
 * ordinary source names under the same decorations stay ordinary. Judged through `Jail.protectedName`, the decision
 * the file tools and the sandbox's mask (`SandboxProfile.classify`) share.
 */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { mostReadings, undecorated } from "../../../src/domain/jail/CopyNames.js"
import * as Jail from "../../../src/domain/jail/Jail.js"
import * as Profile from "../../../src/domain/sandbox/SandboxProfile.js"

const protectedBases = [
  ".env", ".env.local", ".env.production", "prod.env", "id_rsa", "id_ed25519", ".npmrc", ".pgpass", ".netrc", ".envrc",
  "credentials", "credentials.json", "server.key", "cert.p12", "terraform.tfstate", "prod.tfvars", "kubeconfig",
  "secrets.yml", "service-account.json", ".git-credentials", "rclone.conf"
]
const ordinaryBases = [
  "index.ts", "environment.ts", "env.ts", "src.ts", "config.ts", "credentials.ts", "README.md", "package.json",
  "tsconfig.json", "main.go", "notes.txt", "Makefile", ".gitignore", ".eslintrc.json", "id_rsa.pub", "keys.ts",
  ".env.example", ".env.sample", ".env.template", "report.pdf", "app.module.ts", "client.ts"
]

const digits = fc.integer({ min: 1, max: 99999 }).map(String)
const date = fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
const compact = date.map((d) => d.replaceAll("-", ""))
const word = fc.constantFrom("Bob", "alice", "DESKTOP-1", "Jürgen")

/** Decorations that go at the very end of a name. */
const suffix = fc.oneof(
  fc.constantFrom("~", ".bak", ".orig", ".old", ".save", ".swp", ".swo", ".tmp", ".rej", ".part", ".crdownload", ".gz", ".zip", ".tar.gz", "_old", "-bak"),
  // Other tools' copies (red team ToolCopyNames): IDE safe writes, package managers, svn, RCS, archives, backups.
  fc.constantFrom("___jb_tmp___", "___jb_old___", ".crswap", ".rpmsave", ".rpmnew", ".dpkg-old", ".dpkg-dist", ".pacnew", ".pacsave", ".ucf-old", ".mine", ".working", ".merge-left.r41", ",v", ".bkp", ".new", ".sav", "_copy", ".rar", ".lz", ".tar.zst", "-DESKTOP-1A2B3C"),
  digits.map((n) => `.r${n}`),
  digits.map((n) => `.${n}`),
  digits.map((n) => `.~${n}~`),
  date.map((d) => `.${d}`)
)
/** Decorations a sync client, browser or file manager puts before the last extension (or at the end without one). */
const infix = fc.oneof(
  digits.map((n) => ` (${n})`),
  digits.map((n) => `(${n})`),
  digits.map((n) => ` ${n}`),
  fc.constantFrom(" copy", " copy 2", " - Copy", " - Copy (3)", " (copy)", " (another copy)", " (2nd copy)", " - Kopie", " copie"),
  fc.tuple(word, date).map(([w, d]) => ` (${w}'s conflicted copy ${d})`),
  fc.tuple(word, date).map(([w, d]) => ` (${w}'s conflicted copy ${d} (1))`),
  fc.tuple(date, digits).map(([d, n]) => ` (conflicted copy ${d} ${n})`),
  fc.tuple(compact, fc.stringMatching(/^[A-Z0-9]{7}$/)).map(([d, id]) => `.sync-conflict-${d}-123456-${id}`),
  fc.tuple(fc.constantFrom("BACKUP", "BASE", "LOCAL", "REMOTE"), digits).map(([k, n]) => `_${k}_${n}`),
  digits.map((n) => `_${n}`)
)
type Decorate = (name: string) => string
const beforeExtension = (deco: string): Decorate => (name) => {
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? name + deco : name.slice(0, dot) + deco + name.slice(dot)
}
const decorate: fc.Arbitrary<Decorate> = fc.oneof(
  suffix.map((s): Decorate => (name) => name + s),
  infix.map((s): Decorate => (name) => name + s),
  infix.map(beforeExtension),
  fc.constantFrom<Decorate>(
    (name) => `#${name}#`,
    (name) => `.#${name}`,
    (name) => `Copy of ${name}`,
    (name) => `Copy (2) of ${name}`,
    (name) => `.${name}.swp`,
    (name) => `.${name}.un~`,
    (name) => `.${name}.Ab12Cd`,
    (name) => `.unison.${name}.8f3a2c.unison.tmp`
  )
)
const stacked = (base: string) => fc.array(decorate, { minLength: 1, maxLength: 6 }).map((ds) => ds.reduce((n, d) => d(n), base))
const caseOf = (name: string, flips: ReadonlyArray<boolean>) => [...name].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join("")

const judged = (name: string, dir = "/ws/a") => Jail.protectedName(`${dir}/${name}`, "/ws")

describe("copy names", () => {
  it("a protected name under any stack of copy decorations, in any case, is protected and masked", () => {
    fc.assert(
      fc.property(fc.constantFrom(...protectedBases).chain(stacked), fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), (name, flips) => {
        const shown = caseOf(name, flips)
        expect(judged(shown)?.kind, shown).toBe("secret")
        expect(Profile.classify("/ws", `/ws/a/${shown}`, "file"), shown).toBe("mask")
      }),
      { numRuns: 3000 }
    )
  })

  it("an ordinary source name under the same decorations stays ordinary", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ordinaryBases).chain(stacked), (name) => {
        // A template under decorations is judged as today (`.env.example (1)`, `.env_1.example`: a name starting
        // `.env.`, `.env-` or `.env_` that is not exactly a template is secret), and a hidden one is ambiguous:
        // `..env.sample` is also rsync's temporary name for a copy of `.env` (`.<name>.<6 random characters>`).
        fc.pre(!name.includes(".env"))
        expect(judged(name), name).toBeUndefined()
      }),
      { numRuns: 3000 }
    )
  })

  it("a copy of a secret folder holds secrets: .ssh (1)/, .aws.bak/, Copy of .ssh/", () => {
    fc.assert(
      fc.property(fc.constantFrom(".ssh", ".aws", ".gnupg", ".kube").chain(stacked), fc.constantFrom("known_hosts", "config", "x.txt"), (dir, file) => {
        expect(judged(`${dir}/${file}`, "/ws")?.kind, `${dir}/${file}`).toBe("secret")
      }),
      { numRuns: 500 }
    )
  })

  it("ends on any stack, however deep (no step bound to stack past)", () => {
    // Past what any file name (255 bytes) could stack: a step bound would have let the 9th decoration through.
    const deep = ".env" + Array.from({ length: 20 }, (_, i) => ` (${i + 1})`).join("") + ".bak~.orig"
    expect(undecorated(deep.toLowerCase())).toContain(".env")
    expect(judged(deep)?.kind).toBe("secret")
    // Built to be ambiguous past what is enumerated: judged protected, whatever its readings.
    const ambiguous = "notes" + " (1)".repeat(40) + ".txt" + "~".repeat(40)
    expect(undecorated(ambiguous).length).toBeGreaterThan(mostReadings)
    expect(judged(ambiguous)?.kind).toBe("secret")
  })

  it("judges a name as it looks: compatibility forms, combining marks, invisible characters, no-break spaces", () => {
    for (const n of ["ｉｄ_ｒｓａ", "ⅰd_rsa", "i\u0307d_rsa", "id\u200b_rsa", "\ufeff.env", ".env\u00a0(1)", ".e\u0301nv", "id_rsa\u3000(1)"]) {
      expect(judged(n)?.kind, JSON.stringify(n)).toBe("secret")
    }
    for (const n of ["environment.ts", "résumé.md", "ｉｎｄｅｘ.ts", "naïve (1).txt"]) expect(judged(n), n).toBeUndefined()
  })

  it("templates and ordinary look-alikes, decided: .envrc is direnv's secret file; .env.example and friends stay readable", () => {
    expect(judged(".envrc")?.kind).toBe("secret")
    for (const n of [".env.example", ".env.sample", ".env.template", ".env.dist", ".env-example", "environment.ts", "src/env.ts", "id_rsa.pub", "id_rsa (1).pub", "notes copy.txt", "report (Bob's conflicted copy 2024-01-01).pdf", "main_BACKUP_123.go", "index-1.js", "chunk.3f2a1b.js"]) {
      expect(judged(n), n).toBeUndefined()
    }
  })
})
