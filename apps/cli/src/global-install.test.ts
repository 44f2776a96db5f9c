// `relevance` from any folder: the README's one install step (`npm install -g ./apps/cli`), run as
// written into a global prefix of this test's own, with npm offline, gives a command that works in a
// folder outside the repository (an ML engineer's own), on whatever `node` comes first on PATH
// without the repository's node_modules/.bin (Node 20 on the project's machines: the command then
// runs on the Node 22 the checkout pins). The docs use that form, never `npx relevance` (outside
// the repository npx would fetch whatever the registry calls "relevance").
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./test-support.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const ACCOUNT = "acct_0123456789ab";

let work: string;
let prefix: string;
let folder: string;
let env: NodeJS.ProcessEnv;

/** A shell of someone who has not run anything in the repository: no node_modules/.bin, no npm_* variables. */
function outsideEnv(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.toLowerCase().startsWith("npm_") && !/^(DATA_DIR|PORT|ADMIN_TOKEN|RELEVANCE_)/.test(name))
      base[name] = value;
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !/node_modules[\\/]\.bin/.test(dir));
  return {
    ...base,
    PATH: [join(prefix, "bin"), ...path].join(delimiter),
    npm_config_prefix: prefix,
    // Nothing may come from the network: offline, and a registry nobody answers at.
    npm_config_offline: "true",
    npm_config_registry: "http://127.0.0.1:9/",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_cache: join(work, "npm-cache"),
  };
}

const run = (command: string, args: string[], input?: string) =>
  spawnSync(command, args, { cwd: folder, env, encoding: "utf8", input, timeout: 120_000 });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "relevance-global-"));
  prefix = join(work, "prefix");
  folder = mkdtempSync(join(work, "ml-"));
  env = outsideEnv();
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("relevance installed once, run from any folder", () => {
  it("the README installs it with one command, and no doc runs it with npx", () => {
    // A line of its own in a shell block (apps/local/src/readme-runs.test.ts runs it there too).
    expect(README.match(/^npm install -g .*$/gm)).toEqual(["npm install -g ./apps/cli"]);
    const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith(".md"),
    );
    const npx = docs.filter((f) => /npx relevance\b/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(npx).toEqual([]);
  });

  it("works in a folder outside the repository after the README's install step, offline", () => {
    const install = spawnSync("bash", ["-c", "npm install -g ./apps/cli"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(install.stderr).not.toMatch(/ERR!/);
    expect(install.status).toBe(0);
    expect(relative(ROOT, folder).startsWith("..")).toBe(true);
    expect(realpathSync(run("bash", ["-c", "command -v relevance"]).stdout.trim())).toBe(
      realpathSync(join(ROOT, "apps/cli/bin/relevance.js")),
    );
    // The node this folder's shell has (the machine's own; 20 here, which cannot run .ts itself).
    expect(run("node", ["--version"]).stdout).toMatch(/^v\d+\./);

    expect(run("relevance", ["--help"]).stdout).toContain("Commands:");
    for (const file of ["model.json", "golden.jsonl"])
      copyFileSync(join(ROOT, "training/demo", file), join(folder, file));
    const exported = run("relevance", [
      "model",
      "export",
      "--from",
      "xgboost",
      "--input",
      "model.json",
      "--golden",
      "golden.jsonl",
      "--model-id",
      `${ACCOUNT}:products:v2`,
      "--title-field",
      "title",
      "--tags-field",
      "tags",
      "--out",
      "model-products.json",
    ]);
    expect(exported.stderr).toBe("");
    expect(exported.status).toBe(0);
    const inspected = run("relevance", ["model", "inspect", "--model", "model-products.json"]);
    expect(inspected.status).toBe(0);
    expect(inspected.stdout).toContain(`${ACCOUNT}:products:v2`);
    const row = JSON.parse(readFileSync(join(folder, "golden.jsonl"), "utf8").split("\n")[0] as string);
    const predicted = run(
      "relevance",
      ["model", "predict", "--model", "model-products.json", "--input", "-"],
      `${JSON.stringify({ features: row.features })}\n`,
    );
    expect(predicted.status).toBe(0);
    expect(JSON.parse(predicted.stdout).prediction).toBeCloseTo(row.prediction, 5);
  }, 240_000);
});
