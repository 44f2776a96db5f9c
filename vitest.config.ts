import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "infra/src/**/*.test.ts"],
    // chDB (monitor) crashes under worker threads; forks keep every test file in its own process.
    pool: "forks",
    testTimeout: 30_000,
  },
});
