/**
 * Source code by its name (issue 40): a file whose extension says it is code is not a secret because of its stem
 * (`secrets.py`, Python's standard library; `secrets.go`, `secrets.test.ts`) or because of the folder it is in
 * (`credentials/tls.go`, gRPC's; `credentials/provider.go`, the AWS SDK's). Names that are secrets by their exact
 * name (`wp-config.php`) or by their extension (`*.pem`, `*.tfvars`) stay protected whatever this says: the jail
 * (Jail.ts `fileSecret`) asks this only before its rules by stem and by folder.
 *
 * Not code here, though some run: what is configuration or data (`.json .yaml .toml .ini .cfg .conf .env .properties
 * .xml .txt .md`, no extension); shell and PowerShell scripts (`.sh .bash .zsh .ps1 .bat .cmd`), which are how
 * environment files are often written (`secrets.sh`, `.env.ps1`: `export TOKEN=…`); and scripts that are
 * configuration by design and hold credentials as often as not: Jenkins's `init.groovy.d/credentials.groovy`,
 * Phoenix's `prod.secret.exs`, Gradle's `.kts`, Terraform's `.tf`, notebooks (`.ipynb` keep their outputs).
 */

/** Extensions (lower-case, without the dot) of source files in the languages and web formats projects are made of. */
export const codeExtensions: ReadonlySet<string> = new Set([
  "go", "py", "pyi", "pyx", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "java", "kt", "scala", "rb", "rs",
  "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "cs", "fs", "vb", "php", "swift", "m", "mm", "dart", "ex", "erl",
  "hs", "ml", "mli", "lua", "pl", "pm", "jl", "zig", "nim", "clj", "cljs", "elm", "vue", "svelte", "astro", "html",
  "css", "scss", "sass", "less", "proto", "graphql", "sol"
])

/** Whether a (lower-cased) name's last extension is a code extension: `tls.go`, `secrets.test.ts`; not `.py`. */
export const isCodeName = (name: string): boolean => {
  const dot = name.lastIndexOf(".")
  return dot > 0 && codeExtensions.has(name.slice(dot + 1))
}

/**
 * Whether a name is source code, given its readings as a copy of another name (CopyNames.undecorated, itself
 * first): `secrets.py.bak` is a copy of `secrets.py`, and as much code as it is.
 */
export const isCode = (readings: ReadonlyArray<string>): boolean => readings.some(isCodeName)
