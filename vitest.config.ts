import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most test time is spent waiting on child processes (servers, CLIs, language servers), not on the CPU: four
    // forks on a 2-core machine keep both cores busy (two forks left them about 40% idle).
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/blockWatch.ts"]
  }
})
