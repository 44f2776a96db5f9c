// Test helpers for the `relevance` bin: run it in a child process (asynchronously, so that doubles
// served by the test process itself keep answering) and build artifacts with `relevance model export`.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BIN = join(ROOT, "node_modules/.bin/relevance");
export const XGB = join(ROOT, "packages/relevance/core/fixtures/xgboost");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Variables the procedures read; the tests set them explicitly, never from the outer environment. */
const SCRUBBED = [
  "ADMIN_TOKEN",
  "DATA_DIR",
  "PORT",
  "CLOUDFLARE_API_TOKEN",
  "CLOUDFLARE_ACCOUNT_ID",
  "RELEVANCE_ENVIRONMENTS",
  "RELEVANCE_NOW",
  "RELEVANCE_DEBUG",
  "AWS_PROFILE",
];

/** Runs the real `relevance` bin, as `npx relevance` does, in a fresh process. */
export function relevance(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete base[name];
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exports the XGBoost fixture as the artifact `<modelId>` trained on the given fields; returns the file name. */
export async function exportArtifact(
  cwd: string,
  modelId: string,
  out: string,
  fields: { title: string; tags: string } = { title: "title", tags: "tags" },
): Promise<string> {
  const r = await relevance(cwd, [
    "model",
    "export",
    "--from",
    "xgboost",
    "--input",
    join(XGB, "binary_logistic.model.json"),
    "--model-id",
    modelId,
    "--title-field",
    fields.title,
    "--tags-field",
    fields.tags,
    "--out",
    out,
  ]);
  if (r.code !== 0) throw new Error(`export failed: ${r.stderr}`);
  return out;
}

/** Stderr is one line (the procedures' promise for every failure). */
export const oneLine = (r: Run): string[] => r.stderr.trimEnd().split("\n");

/** Runs a repository script with this Node (npm start's), as `npm run <script> -- ...` would. */
export function node(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
