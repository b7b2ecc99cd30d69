import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Red-team and end-to-end tests run several CLI processes one after the other (~1 s of CPU each): 30 s was
    // exceeded at the 2-core CI machine's load of 10 (SeparateGitDir: eight calls, 31.7 s). A test that hangs now
    // fails after two minutes instead of thirty seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most test time is spent waiting on child processes (servers, CLIs, language servers), not on the CPU: four
    // forks on a 2-core machine keep both cores busy (two forks left them about 40% idle).
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/blockWatch.ts"]
  }
})
