// vitest config of the by-hand contract run over the bench-only engines (contract.check.ts).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["scripts/bench/engines/contract.check.ts"], pool: "forks", testTimeout: 30_000 },
});
