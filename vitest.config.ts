import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { testFilesByLane } from "./scripts/test-lanes/files.ts";

const ROOT = fileURLToPath(new URL(".", import.meta.url));
// Three lanes (scripts/test-lanes/lanes.ts decides each file's by what it starts): `npm test` runs
// all, `npm run test:unit` only the pure and in-memory tests.
const lanes = testFilesByLane(ROOT.replace(/\/$/, ""));

export default defineConfig({
  test: {
    // chDB (monitor) crashes under worker threads; forks keep every test file in its own process.
    pool: "forks",
    testTimeout: 30_000,
    // Setup that synthesizes CDK stacks, bundles the Worker or starts the stack can take longer than
    // vitest's default 10 s on a busy 2-vCPU machine.
    hookTimeout: 60_000,
    env: {
      // The monitor's disk_high rule reads the embedded store's disk; without a quota that is the
      // host's filesystem, whose fill is the machine's, not the test's (a CI host 81 % full fired it
      // in every test that counts alerts). 1 GiB: far above what a test writes. The tests of the disk
      // figures themselves pass their own quota or none.
      MONITOR_DISK_QUOTA_BYTES: String(1024 ** 3),
    },
    projects: [
      // Pure and in-memory: no chDB, so worker threads, one module graph for all (no per-file process).
      { extends: true, test: { name: "unit", include: lanes.unit, pool: "threads", isolate: false } },
      { extends: true, test: { name: "integration", include: lanes.integration } },
      { extends: true, test: { name: "e2e", include: lanes.e2e } },
    ],
  },
});
