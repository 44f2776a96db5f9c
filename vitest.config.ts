import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/*/src/**/*.test.ts",
      "apps/*/src/**/*.test.ts",
      "infra/src/**/*.test.ts",
      "scripts/**/*.test.ts",
    ],
    // chDB (monitor) crashes under worker threads; forks keep every test file in its own process.
    pool: "forks",
    testTimeout: 30_000,
    // Setup that synthesizes CDK stacks, bundles the Worker or starts the stack can take longer than
    // vitest's default 10 s on a busy 2-vCPU machine.
    hookTimeout: 60_000,
  },
});
