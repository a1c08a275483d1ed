import { defineConfig } from "vitest/config";

/** bench/langgraph-savers runs bench/savers.bench.ts with this (vitest only compiles and runs it; it is no test). */
export default defineConfig({
  test: {
    include: ["bench/**/*.bench.ts"],
    testTimeout: 6 * 60 * 60 * 1000,
    hookTimeout: 600_000,
    pool: "forks",
  },
});
