import { ownerOnlyUmask } from "./data-dir.ts";
import { seedDemo } from "./demo.ts";
import { readConfig } from "./env.ts";
import { chooseLogOutput } from "./log-format.ts";
import { startupConsole } from "./logger.ts";
import { startStack } from "./stack.ts";

// Before anything opens a file: DATA_DIR holds tokens and key hashes (docs/limits.md, "Files").
ownerOnlyUmask();
const chosen = chooseLogOutput(process.env, process.stdout.isTTY === true);
if (!chosen.ok) {
  process.stderr.write(`npm start: ${chosen.error}\n`);
  process.exit(2);
}
const out = startupConsole(chosen.output);
const log = out.logger("local");
const parsed = readConfig(process.env);
if (!parsed.ok) {
  process.stderr.write(`npm start: ${parsed.error}\n`);
  process.exit(2);
}
const { config } = parsed;

try {
  out.starting(
    config.demo
      ? `Starting the local stack in ${config.dataDir} (a first start seeds the demo shop: a few seconds)...`
      : `Starting the local stack in ${config.dataDir}...`,
  );
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
  const demo = config.demo ? await seedDemo(stack, config, log) : null;
  if (demo !== null) {
    const { systemAccountId, apiKey, modelId, curl } = demo;
    log.info("demo data ready", { systemAccountId, apiKey, modelId, curl });
  }
  out.ready({
    url: stack.url,
    dataDir: config.dataDir,
    exporter: config.exporter,
    adminToken: { value: config.adminToken, generated: config.adminTokenGenerated },
    monitorToken: { value: config.monitorToken, generated: config.monitorTokenGenerated },
    demo:
      demo === null ? null : { modelId: demo.modelId, curl: demo.curl, relevanceScore: demo.relevanceScore },
  });
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
