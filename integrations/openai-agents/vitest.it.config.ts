import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.it.test.ts"],
    // one real stack for every integration test file (it takes minutes to start on the build machines)
    globalSetup: ["../../clients/typescript/test/real-stack.global.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: false,
  },
});
