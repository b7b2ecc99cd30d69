/**
 * minicode's version, on its own so that the executable (src/launcher.ts) answers `minicode --version` without
 * loading the program: the CLI (Cli.ts) and `doctor` read it from here too.
 */
export const version = "0.1.0"
