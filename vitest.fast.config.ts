// `npm run test:fast`: the tests a developer runs in under a minute — the domain's pure decisions, in-memory fakes
// and units on real files in a temporary folder. No built CLI, no `mcp serve`, no language or database server, no
// sandbox, no spawned tool: those are the full run's (`npm test`), which builds dist/ first.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "test/architecture.test.ts",
      "test/domain/**/*.test.ts",
      "test/corpus/**/*.test.ts",
      "test/adapters/{approval,net,treesitter}/**/*.test.ts",
      "test/adapters/fs/FileSystem.test.ts",
      "test/adapters/journal/MemoryJournal.test.ts",
      "test/adapters/shell/{MemoryShell.contract,ScanStore,StoredAliases}.test.ts",
      "test/adapters/mcp/StdioLineTransport.test.ts",
      "test/kernel/{Errors,Executor,Executor.deadline,Lazy,Jail.realfs,Subtree}.test.ts",
      "test/serve/{CallProgress,Protocol,ToolSchemas,McpRetry,Main}.test.ts",
      "test/tools/{LineSearch,Lru,PathGlob,PathJudge,ReadWindow}.test.ts",
      "test/cli/{Help,Usage}.test.ts"
    ],
    exclude: [
      // (Not listed above: kernel/Ordering and Ordering.teeth, properties over the whole chain: 35 s and 96 s.)
      // They spawn git, bash or the built CLI to compare with (GitIgnore, HookManagers, SanitizedConfig, Glob,
      // McpClientConfig, McpServeDomain), or are long properties over generated or real files (RegexOutline: 24 s,
      // CopyNames: 10 s, Rank: 8 s on a loaded 2-core machine).
      "test/domain/files/{GitIgnore,HookManagers}.test.ts",
      "test/domain/git/SanitizedConfig.test.ts",
      "test/domain/jail/Glob.test.ts",
      "test/domain/mcp/{McpClientConfig,McpServeDomain}.test.ts",
      "test/domain/repomap/{RegexOutline,Rank}.test.ts",
      "test/domain/jail/CopyNames.property.test.ts"
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Pure tests share a worker's module cache (effect, the domain) instead of loading it again per file.
    isolate: false,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    globalSetup: ["test/support/fastSetup.ts"],
    setupFiles: ["test/support/blockWatch.ts"]
  }
})
