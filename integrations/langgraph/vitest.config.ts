import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // LangGraph's checkpoint conformance suite uses describe/it/expect as globals
    globals: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
