// Settings benchmarks (docs/benchmarks.md): admin PUT to KV copy propagation in the embedded stack,
// and settings writes per second. Targets are reported, never asserted.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configFrom } from "../../apps/local/src/env.ts";
import { startStack } from "../../apps/local/src/stack.ts";
import type { Logger } from "../../packages/relevance/settings/src/index.ts";
import { percentile, printTargetTable } from "./report.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

/** Resolves when the exporter reports the copy under `key` written; the stack logs every export. */
class ExportWatcher implements Logger {
  private readonly waiting = new Map<string, (at: number) => void>();
  info(message: string, fields?: Record<string, unknown>): void {
    if (message !== "settings exported") return;
    const resolve = this.waiting.get(fields?.key as string);
    if (resolve) {
      this.waiting.delete(fields?.key as string);
      resolve(performance.now());
    }
  }
  warn(): void {}
  error(message: string, fields?: Record<string, unknown>): void {
    process.stderr.write(`${message} ${JSON.stringify(fields)}\n`);
  }
  next(key: string): Promise<number> {
    return new Promise((resolve) => this.waiting.set(key, resolve));
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(os.tmpdir(), "bench-settings-"));
  const watcher = new ExportWatcher();
  const stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    watcher,
  );
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(stack.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, string>;
  };
  const account = await post("/api/v1/admin/accounts", { name: "Bench" }, admin);
  const key = { "x-api-key": account.apiKey as string };
  const indexes = Array.from({ length: 16 }, (_, i) => `index-${i}`);
  for (const name of indexes) await post("/api/v1/indexes", { name }, key);
  const put = (index: string, n: number) =>
    fetch(
      `${stack.url}/api/v1/admin/accounts/${account.systemAccountId}/indexes/${index}/relevance-trigger-config`,
      {
        method: "PUT",
        headers: admin,
        body: JSON.stringify({
          relevanceTriggerConfig: {
            modelId: `${account.systemAccountId}:${index}:v${n}`,
            titleField: "title",
            tagsField: null,
          },
        }),
      },
    );

  // 1. Propagation: one PUT at a time, from the request until the exporter has written the copy.
  const copyKey = `${account.systemAccountId}-index-0`;
  const latencies: number[] = [];
  for (let n = 1; n <= 600; n++) {
    const exported = watcher.next(copyKey);
    const t0 = performance.now();
    const res = await put("index-0", n);
    if (res.status !== 200) throw new Error(`PUT answered ${res.status}`);
    await res.arrayBuffer();
    const t1 = await exported;
    if (n > 100) latencies.push(t1 - t0); // the first 100 warm the JIT and the page cache
  }
  latencies.sort((a, b) => a - b);

  // 2. Throughput: 16 clients, each writing its own index, for 3 seconds.
  let writes = 0;
  const started = performance.now();
  await Promise.all(
    indexes.map(async (index) => {
      for (let n = 1; performance.now() - started < 3000; n++) {
        const res = await put(index, n);
        await res.arrayBuffer();
        if (res.status === 200) writes++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const caughtUpAt = performance.now();
  while ((await stack.changeLog.cursor()) < stack.changeLog.latest())
    await new Promise((r) => setTimeout(r, 5));
  const lagMs = performance.now() - caughtUpAt;
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });

  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const rows: [string, string, string, string][] = [
    ["admin PUT → KV copy, p50", `${p50.toFixed(2)} ms`, "-", "-"],
    ["admin PUT → KV copy, p99", `${p99.toFixed(2)} ms`, "≤ 50 ms", p99 <= 50 ? "ok" : "MISSED"],
    ["settings writes per second (16 clients)", `${(writes / seconds).toFixed(0)} /s`, "-", "-"],
    ["exporter lag after the write burst", `${lagMs.toFixed(1)} ms`, "-", "-"],
  ];
  console.log(`\nsettings benchmark — ${new Date().toISOString()}`);
  console.log(
    `${os.cpus()[0]?.model} (${os.cpus().length} CPUs), Node ${process.version}; embedded stack over loopback HTTP\n`,
  );
  printTargetTable(rows, [42, 12, 10]);
  const file = join(ROOT, "bench-results", "settings.json");
  mkdirSync(join(ROOT, "bench-results"), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpu: os.cpus()[0]?.model, cpus: os.cpus().length, node: process.version },
        propagationMs: { samples: latencies.length, p50, p99, min: latencies[0], max: latencies.at(-1) },
        writesPerSecond: writes / seconds,
        writes,
        seconds,
        exporterLagMs: lagMs,
        targets: { propagationP99Ms: 50 },
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nResults written to ${file}`);
}

await main();
