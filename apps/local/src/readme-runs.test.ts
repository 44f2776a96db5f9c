// "The README stands alone": every shell command of README.md runs, in order, in one shell, the way a
// newcomer pastes them into a second terminal while `npm start` runs in the first. The stack is the
// real `npm start` entry on a free port with a fresh data folder set by DATA_DIR (not `./.data`), as
// the README's note has the reader export it; the commands run in a folder that looks like the
// reader's clone (the repository's entries linked in), so `training/…` and `./apps/cli` resolve as
// they do for the reader, and files the commands write stay out of the repository. The shell has no
// `relevance` on its PATH until the README installs it (into a prefix of this test's own, offline),
// and its `node` is whatever the machine has (Node 20 here). A command the README gains is run unless
// NOT_RUN names it, and NOT_RUN may name only commands the README has, so the list stays exact.
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN_PLACEHOLDER,
  anchorLinks,
  asReaderRunsIt,
  headingAnchors,
  MONITOR_TOKEN_PLACEHOLDER,
  type ReadmeCommand,
  readmeCommands,
  relativeLinks,
  untaggedFences,
} from "./readme-commands.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const COMMANDS = readmeCommands(README);

/**
 * README commands this test does not run, each with why (keys: the command on one line, as
 * `normalizeCommand` writes it). Everything else in a sh/bash/shell block runs.
 */
const NOT_RUN: Record<string, string> = {
  "npm install": "installs the dependencies: this test runs inside an installed checkout",
  "npm start":
    "runs in the foreground until Ctrl-C: the test starts the same entry (apps/local/src/main.ts) itself, on a free port with a fresh data folder",
  "npm test": "runs every test, this one included",
};

/**
 * What a command must print on stdout besides exiting 0, for the commands whose point is what they
 * show (keys: a part of the one-line command). Each key must match a README command.
 */
const SHOWS: [string, RegExp][] = [
  ["/healthz", /"status":"ok"/],
  ["curl -s -i -X POST http://127.0.0.1:8787/api/v1/indexes/products/search", /"relevanceScore":\d/],
  ["/indexes/catalog/search", /"relevanceScore":\d/],
  ["/api/v1/admin/accounts", /"apiKey":"rk_/],
  ["/api/system/status", /"collectors":\[/],
  ["relevance features log", /wrote scratch\/features\.jsonl: 50 rows/],
  ["relevance model inspect", /products:v2/],
  ["relevance rollout", /products:v2/],
  ["relevance config get", /products:v2/],
  ["relevance --help", /Commands:/],
  ["relevance model export --help", /Examples:/],
  ["relevance model predict", /"score":/],
];

/** Variables of this process's environment that the commands must get from the README, not from here. */
const SCRUBBED = ["ADMIN_TOKEN", "MONITOR_TOKEN", "API_KEY", "ACCOUNT", "DATA_DIR", "PORT", "LOG_FORMAT"];

/** Entries of the repository the clone does not link: the reader's own data and scratch files. */
const NOT_LINKED = [".git", ".data", "scratch"];

/**
 * The reader's shell: this process's environment without what the README sets, without the
 * repository's node_modules/.bin on PATH (a reader has no `relevance` before installing it, and the
 * machine's own `node`), and with a global npm prefix of the test's own, offline.
 */
function readerEnv(prefix: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  for (const name of Object.keys(env)) if (name.toLowerCase().startsWith("npm_")) delete env[name];
  const path = (env.PATH ?? "").split(delimiter).filter((dir) => !/node_modules[\\/]\.bin/.test(dir));
  return {
    ...env,
    PATH: [join(prefix, "bin"), ...path].join(delimiter),
    npm_config_prefix: prefix,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_cache: join(prefix, "npm-cache"),
  };
}

describe("README.md stands alone", () => {
  it("tags every fence, so that no command hides in an untagged block", () => {
    expect(untaggedFences(README)).toEqual([]);
  });

  it("links only to files in the repository", () => {
    const missing = relativeLinks(README).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
    expect(README).not.toMatch(/\]\(\.\.\//);
    const anchors = headingAnchors(README);
    expect(anchorLinks(README).filter((a) => !anchors.includes(a))).toEqual([]);
  });

  it("names in NOT_RUN and SHOWS only commands it has, and asks for both tokens", () => {
    const normalized = COMMANDS.map((c) => c.normalized);
    expect(Object.keys(NOT_RUN).filter((c) => !normalized.includes(c))).toEqual([]);
    expect(SHOWS.filter(([part]) => !normalized.some((c) => c.includes(part))).map(([p]) => p)).toEqual([]);
    expect(README).toContain(ADMIN_TOKEN_PLACEHOLDER);
    expect(README).toContain(MONITOR_TOKEN_PLACEHOLDER);
  });
});

describe("every command of README.md, against a real npm start", () => {
  let stack: RunningStack;
  let clone: string;
  let work: string;
  let dataDir: string;
  let prefix: string;
  let port: number;
  const linked: string[] = [];

  beforeAll(async () => {
    clone = mkdtempSync(join(tmpdir(), "readme-"));
    for (const entry of readdirSync(ROOT)) {
      if (NOT_LINKED.includes(entry)) continue;
      symlinkSync(join(ROOT, entry), join(clone, entry));
      linked.push(join(clone, entry));
    }
    // The test's own files, the stack's data folder and npm's global prefix live outside the clone.
    work = mkdtempSync(join(tmpdir(), "readme-work-"));
    dataDir = join(work, "shop-data");
    prefix = join(work, "npm-global");
    stack = await spawnStack({ DEMO: "1", DATA_DIR: dataDir, PORT: "0" });
    port = Number(new URL(stack.url).port);
    // The reader starts pasting once the banner is up: it comes with the first scored search.
    await stack.waitFor((l) => l.message === "demo search ready: run the curl for a scored search", 180_000);
  }, 240_000);

  afterAll(async () => {
    await stack?.kill("SIGTERM");
    // The links first, one by one: removing the folder must never reach into the repository.
    for (const link of linked) unlinkSync(link);
    rmSync(clone, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("runs each command with exit 0, in README order, and each shows what the README says it shows", async () => {
    const run = COMMANDS.filter((c) => NOT_RUN[c.normalized] === undefined);
    expect(run.length).toBeGreaterThan(10);
    const outDir = join(work, "readme-run");
    mkdirSync(outDir);
    const facts = { port, adminToken: ADMIN_TOKEN, monitorToken: MONITOR_TOKEN };
    const script = [
      "set -o pipefail",
      // The reader sees an HTTP error in curl's output; here it must fail the command.
      'curl() { command curl --fail-with-body "$@"; }',
      // The README's note for a PORT and DATA_DIR of one's own: export the same in this terminal.
      `export PORT=${port}`,
      `export DATA_DIR=${dataDir}`,
      ...run.map((c, i) =>
        [
          "{",
          asReaderRunsIt(c.text, facts),
          `} >${outDir}/${i}.out 2>${outDir}/${i}.err </dev/null`,
          `echo $? >${outDir}/${i}.rc`,
          `[ "$(cat ${outDir}/${i}.rc)" = 0 ] || exit 0`,
        ].join("\n"),
      ),
    ].join("\n");
    writeFileSync(join(outDir, "readme.sh"), script);
    await new Promise<void>((resolve, reject) => {
      const child = spawn("bash", [join(outDir, "readme.sh")], {
        cwd: clone,
        env: readerEnv(prefix),
        stdio: "ignore",
      });
      child.once("error", reject);
      child.once("close", () => resolve());
    });

    const read = (i: number, ext: string) => {
      const path = join(outDir, `${i}.${ext}`);
      return existsSync(path) ? readFileSync(path, "utf8") : null;
    };
    const report = (c: ReadmeCommand, i: number, why: string) =>
      `README.md:${c.line}: ${c.normalized}\n  ${why}\n  stdout: ${(read(i, "out") ?? "").slice(-600)}\n  stderr: ${(read(i, "err") ?? "").slice(-600)}`;
    const failures: string[] = [];
    run.forEach((c, i) => {
      const rc = read(i, "rc");
      if (rc === null) return; // not reached: an earlier command failed and is reported
      if (rc.trim() !== "0") {
        failures.push(report(c, i, `exited ${rc.trim()}`));
        return;
      }
      for (const [part, shows] of SHOWS)
        if (c.normalized.includes(part) && !shows.test(read(i, "out") ?? ""))
          failures.push(report(c, i, `does not show ${shows}`));
    });
    expect(failures).toEqual([]);
    // Every command ran (none was skipped because an earlier one failed).
    expect(run.map((_, i) => read(i, "rc")?.trim())).toEqual(run.map(() => "0"));
  }, 300_000);

  it("leaves the reader's clone lint-clean: every file the commands wrote is ignored by git and Biome", () => {
    const written = readdirSync(clone).filter((entry) => !linked.includes(join(clone, entry)));
    expect(written.length).toBeGreaterThan(0);
    // A repository of its own with the real .gitignore and biome.json, and what the README wrote.
    const repo = mkdtempSync(join(work, "lint-"));
    for (const file of [".gitignore", "biome.json"]) cpSync(join(ROOT, file), join(repo, file));
    for (const entry of written) cpSync(join(clone, entry), join(repo, entry), { recursive: true });
    expect(spawnSync("git", ["init", "-q", repo]).status).toBe(0);
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(status.stdout.trim().split("\n").sort()).toEqual(["?? .gitignore", "?? biome.json"]);
    const biome = spawnSync(join(ROOT, "node_modules/.bin/biome"), ["check", "."], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(`${biome.stdout}${biome.stderr}`).toMatch(/Checked 1 file/);
    expect(biome.status).toBe(0);
  });

  it("reads the demo account with DATA_DIR unset, from ./.data, as with npm start's default", () => {
    // The same lines in a folder whose ./.data is the stack's data folder, DATA_DIR not exported.
    const sourcing = COMMANDS.filter((c) => c.text.includes("demo.env")).map((c) => c.text);
    expect(sourcing).toHaveLength(1);
    const folder = mkdtempSync(join(work, "default-"));
    symlinkSync(dataDir, join(folder, ".data"));
    const shown = spawnSync("bash", ["-c", [...sourcing, 'echo "$ACCOUNT $API_KEY"'].join("\n")], {
      cwd: folder,
      env: readerEnv(prefix),
      encoding: "utf8",
    });
    expect(shown.stderr).toBe("");
    expect(shown.stdout).toMatch(/^acct_[0-9a-f]{12} rk_[A-Za-z0-9_-]{43}\n$/);
  });
});
