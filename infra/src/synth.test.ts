/**
 * What CI's `cdk synth` does, for real and offline: the app command of cdk.json in a child process,
 * without AWS credentials or network, into a fresh cloud assembly; then the same through the CDK CLI.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CloudAssembly } from "aws-cdk-lib/cx-api";
import { describe, expect, it } from "vitest";
import { COLLECTOR_ROLE_STACK, MONITOR_STACK, searchStackName } from "./build-app.ts";
import { SEARCH_ENVIRONMENTS } from "./environments.ts";

const INFRA = fileURLToPath(new URL("..", import.meta.url));
// Wherever npm placed it (hoisted to the root or kept under infra/).
const CDK_CLI = join(dirname(createRequire(import.meta.url).resolve("aws-cdk/package.json")), "bin", "cdk");
const EXPECTED = [...SEARCH_ENVIRONMENTS.map(searchStackName), MONITOR_STACK, COLLECTOR_ROLE_STACK].sort();
const SYNTH_TIMEOUT_MS = 120_000;

/** The environment of an offline CI job: no credentials of any kind, no metadata service, no telemetry. */
function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AWS_") || k.startsWith("CDK_")) continue;
    env[k] = v;
  }
  return {
    ...env,
    // The Node 22 running this test first on PATH: cdk.json's `node src/app.ts` needs type stripping.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    AWS_CONFIG_FILE: join(tmpdir(), "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(tmpdir(), "no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    CDK_DISABLE_VERSION_CHECK: "1",
    CDK_DISABLE_CLI_TELEMETRY: "1",
    ...extra,
  };
}

function expectAssembly(dir: string): void {
  const assembly = new CloudAssembly(dir);
  expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual(EXPECTED);
  for (const stack of assembly.stacks) {
    expect(Object.keys(stack.template.Resources ?? {}).length, stack.stackName).toBeGreaterThan(0);
  }
  // Every Lambda bundle was staged into the assembly (what `cdk deploy` would upload).
  const manifest = JSON.parse(readFileSync(join(dir, `${MONITOR_STACK}.assets.json`), "utf8")) as {
    files: Record<string, { source: { path: string } }>;
  };
  const sources = Object.values(manifest.files)
    .map((f) => f.source.path)
    .filter((p) => p.startsWith("asset."));
  expect(sources.length).toBeGreaterThanOrEqual(3);
  for (const p of sources) expect(existsSync(join(dir, p, "index.mjs")), p).toBe(true);
}

describe("synthesis without credentials", () => {
  it(
    "the app command of cdk.json synthesizes every stack into a valid cloud assembly",
    () => {
      const cdkJson = JSON.parse(readFileSync(join(INFRA, "cdk.json"), "utf8")) as { app: string };
      const out = mkdtempSync(join(tmpdir(), "svc-infra-app-"));
      const run = spawnSync(cdkJson.app, {
        cwd: INFRA,
        shell: true,
        env: offlineEnv({ CDK_OUTDIR: out }),
        encoding: "utf8",
        timeout: SYNTH_TIMEOUT_MS,
      });
      try {
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
        expectAssembly(out);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    "cdk synth (the CDK CLI) synthesizes every stack",
    () => {
      const out = mkdtempSync(join(tmpdir(), "svc-infra-cdk-"));
      const run = spawnSync(
        process.execPath,
        [CDK_CLI, "synth", "--quiet", "--no-notices", "--output", out],
        {
          cwd: INFRA,
          env: offlineEnv(),
          encoding: "utf8",
          timeout: SYNTH_TIMEOUT_MS,
        },
      );
      const output = `${run.stdout}\n${run.stderr}`;
      try {
        expect(output).not.toMatch(/error/i);
        expect(run.status).toBe(0);
        expectAssembly(out);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );
});
