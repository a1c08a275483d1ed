import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // the unit tests run against fake servers on 127.0.0.1 and finish in seconds; the integration test sets its own timeouts
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
