import { ownerOnlyUmask } from "./data-dir.ts";
import { seedDemo } from "./demo.ts";
import { readConfig } from "./env.ts";
import { stdoutLogger } from "./logger.ts";
import { startStack } from "./stack.ts";

// Before anything opens a file: DATA_DIR holds tokens and key hashes (docs/limits.md, "Files").
ownerOnlyUmask();
const log = stdoutLogger("local");
const parsed = readConfig(process.env);
if (!parsed.ok) {
  process.stderr.write(`npm start: ${parsed.error}\n`);
  process.exit(2);
}
const { config } = parsed;

try {
  const stack = await startStack(config, log);
  log.info("listening", { url: stack.url, dataDir: config.dataDir, exporter: config.exporter });
  if (config.monitorTokenGenerated) {
    log.info("generated MONITOR_TOKEN for this run (set MONITOR_TOKEN to choose one)", {
      monitorToken: config.monitorToken,
    });
  }
  if (config.adminTokenGenerated) {
    log.info("generated ADMIN_TOKEN for this run (set ADMIN_TOKEN to choose one)", {
      adminToken: config.adminToken,
    });
  }
  if (config.demo) {
    const demo = await seedDemo(stack, config, log);
    if (demo !== null) log.info("demo data ready", { ...demo });
  }
  const shutdown = async (signal: string) => {
    log.info("shutting down", { signal });
    await stack.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
} catch (error) {
  log.error("failed to start", { error: (error as Error).message });
  process.exit(1);
}
