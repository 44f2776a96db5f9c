// `relevance worker check --env <env>`: checks the search Worker's wrangler configuration before a
// deploy, with the same rules the Worker applies to itself at run time (workerEnvProblems): the KV
// binding, MEILISEARCH_URL, the numeric settings, plus what only the file can get wrong (the
// environment section, placeholder ids, the ids of relevance.environments.json).
import { fileURLToPath } from "node:url";
import { workerEnvProblems } from "@relevance/search";
import { parse as parseToml } from "smol-toml";
import { type FlagSpec, parseFlags, USAGE_EXIT } from "../args.ts";
import { type Io, UserError } from "../io.ts";

export const workerCheckFlags: FlagSpec = {
  env: { type: "string", required: true, help: "dev, staging, preprod or prod" },
  wrangler: { type: "string", help: "the wrangler config (default apps/edge-worker/wrangler.toml)" },
  environments: {
    type: "string",
    help: "relevance.environments.json to compare ids with (default: the repository's)",
  },
  json: { type: "boolean", help: "print the result as JSON" },
};

const DEFAULT_WRANGLER = fileURLToPath(new URL("../../../edge-worker/wrangler.toml", import.meta.url));
const DEFAULT_ENVIRONMENTS = fileURLToPath(
  new URL("../../../../relevance.environments.json", import.meta.url),
);
const CLOUD_ENVS = ["dev", "staging", "preprod", "prod"];
const HEX32 = /^[0-9a-f]{32}$/;

export interface CheckFinding {
  /** What was checked: `account_id`, `KV`, `MEILISEARCH_URL`, ... */
  name: string;
  ok: boolean;
  message: string;
}

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

/** The findings for environment `env` of a parsed wrangler config (and the CLI's environments file, if any). */
export function checkWranglerEnv(config: Table, env: string, environments: Table | null): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const section = isTable(config.env) ? config.env[env] : undefined;
  if (!isTable(section)) {
    return [{ name: `env.${env}`, ok: false, message: `the config has no [env.${env}] section` }];
  }
  // Wrangler does not inherit `vars` and `kv_namespaces` into an environment: its own count.
  const vars = isTable(section.vars) ? section.vars : {};
  const kvs = Array.isArray(section.kv_namespaces) ? section.kv_namespaces.filter(isTable) : [];
  const kv = kvs.find((k) => k.binding === "KV");
  const account = section.account_id;
  if (typeof account !== "string" || !HEX32.test(account)) {
    findings.push({
      name: "account_id",
      ok: false,
      message: `account_id must be the 32-hex-digit Cloudflare account id, got ${JSON.stringify(account ?? null)}`,
    });
  } else findings.push({ name: "account_id", ok: true, message: account });
  if (kv !== undefined && (typeof kv.id !== "string" || !HEX32.test(kv.id))) {
    findings.push({
      name: "KV",
      ok: false,
      message: `the KV binding's id must be the 32-hex-digit namespace id, got ${JSON.stringify(kv.id ?? null)}`,
    });
  }
  // Recording is optional: with the OUTCOMES producer bound, the queue needs this Worker as its
  // consumer with a dead-letter queue, and the consumer needs its ClickHouse variables.
  const queues = isTable(section.queues) ? section.queues : {};
  const producers = Array.isArray(queues.producers) ? queues.producers.filter(isTable) : [];
  const consumers = Array.isArray(queues.consumers) ? queues.consumers.filter(isTable) : [];
  const outcomes = producers.find((p) => p.binding === "OUTCOMES");
  if (outcomes !== undefined) {
    const consumer = consumers.find((c) => c.queue === outcomes.queue);
    if (typeof outcomes.queue !== "string" || outcomes.queue === "") {
      findings.push({ name: "OUTCOMES", ok: false, message: "the OUTCOMES producer names no queue" });
    } else if (consumer === undefined) {
      findings.push({
        name: "OUTCOMES",
        ok: false,
        message: `the queue ${outcomes.queue} has no [[env.${env}.queues.consumers]] entry: nothing would store what is recorded`,
      });
    } else if (typeof consumer.dead_letter_queue !== "string" || consumer.dead_letter_queue === "") {
      findings.push({
        name: "OUTCOMES",
        ok: false,
        message: `the consumer of ${outcomes.queue} has no dead_letter_queue: messages that keep failing would be lost`,
      });
    } else {
      findings.push({
        name: "OUTCOMES",
        ok: true,
        message: `queue ${outcomes.queue}, consumed here, dead letters to ${consumer.dead_letter_queue}`,
      });
    }
  }
  // The secrets are not in the file; they are checked by the Worker itself (503 without them).
  const problems = workerEnvProblems(
    {
      ...vars,
      MEILISEARCH_API_KEY: "(a secret, not in the file)",
      CLICKHOUSE_PASSWORD: "(a secret, not in the file)",
    },
    kv !== undefined,
    outcomes !== undefined,
  );
  for (const p of problems) findings.push({ name: p.name, ok: false, message: p.message });
  if (kv !== undefined && typeof kv.id === "string" && HEX32.test(kv.id)) {
    findings.push({ name: "KV", ok: true, message: `namespace ${kv.id}` });
  }
  const chUrl = vars.CLICKHOUSE_URL;
  if (
    outcomes !== undefined &&
    typeof chUrl === "string" &&
    !problems.some((p) => p.name === "CLICKHOUSE_URL")
  ) {
    const host = new URL(chUrl).hostname;
    if (host.endsWith(".example") || host === "example.com") {
      findings.push({
        name: "CLICKHOUSE_URL",
        ok: false,
        message: `CLICKHOUSE_URL is still the placeholder ${chUrl}`,
      });
    } else if (!chUrl.startsWith("https:")) {
      findings.push({
        name: "CLICKHOUSE_URL",
        ok: false,
        message: `CLICKHOUSE_URL must use https in ${env}, got ${chUrl}`,
      });
    } else findings.push({ name: "CLICKHOUSE_URL", ok: true, message: chUrl });
  }
  const url = vars.MEILISEARCH_URL;
  if (typeof url === "string" && !problems.some((p) => p.name === "MEILISEARCH_URL")) {
    const host = new URL(url).hostname;
    if (host.endsWith(".example") || host === "example.com") {
      findings.push({
        name: "MEILISEARCH_URL",
        ok: false,
        message: `MEILISEARCH_URL is still the placeholder ${url}`,
      });
    } else if (!url.startsWith("https:")) {
      findings.push({
        name: "MEILISEARCH_URL",
        ok: false,
        message: `MEILISEARCH_URL must use https in ${env}, got ${url}`,
      });
    } else findings.push({ name: "MEILISEARCH_URL", ok: true, message: url });
  }
  const mine = environments !== null && isTable(environments[env]) ? (environments[env] as Table) : null;
  if (mine !== null) {
    for (const [field, value, label] of [
      ["kvNamespaceId", kv?.id, "KV namespace id"],
      ["storeAccountId", account, "account id"],
    ] as const) {
      const theirs = mine[field];
      if (typeof theirs === "string" && theirs !== "" && theirs !== value) {
        findings.push({
          name: field,
          ok: false,
          message: `relevance.environments.json's ${field} (${theirs}) differs from the wrangler ${label} (${String(value)}): the CLI would upload models where the Worker does not read`,
        });
      }
    }
  }
  findings.push({
    name: "MEILISEARCH_API_KEY",
    ok: true,
    message: `a secret, not in the file: set it with \`npx wrangler secret put MEILISEARCH_API_KEY --env ${env}\` (the Worker answers 503 without it)`,
  });
  if (outcomes !== undefined) {
    findings.push({
      name: "CLICKHOUSE_PASSWORD",
      ok: true,
      message: `a secret, not in the file: set it with \`npx wrangler secret put CLICKHOUSE_PASSWORD --env ${env}\` (the Worker answers 503 without it)`,
    });
  }
  return findings;
}

export async function workerCheck(argv: string[], io: Io): Promise<number> {
  const flags = parseFlags("worker check", workerCheckFlags, argv);
  const env = flags.env as string;
  if (!CLOUD_ENVS.includes(env)) {
    throw new UserError(
      `--env must be one of ${CLOUD_ENVS.join(", ")}, got ${JSON.stringify(env)}`,
      USAGE_EXIT,
    );
  }
  const file = (flags.wrangler as string | undefined) ?? DEFAULT_WRANGLER;
  let config: Table;
  try {
    config = parseToml(await io.readText(file)) as Table;
  } catch (error) {
    throw new UserError(`cannot read ${file}: ${(error as Error).message.split("\n")[0]}`);
  }
  let environments: Table | null = null;
  const envFile = (flags.environments as string | undefined) ?? DEFAULT_ENVIRONMENTS;
  try {
    environments = JSON.parse(await io.readText(envFile)) as Table;
  } catch {
    environments = null;
  }
  const findings = checkWranglerEnv(config, env, environments);
  const failed = findings.filter((f) => !f.ok);
  if (flags.json === true) {
    io.out(`${JSON.stringify({ env, wrangler: file, ok: failed.length === 0, findings })}\n`);
  } else {
    for (const f of findings) io.out(`${f.ok ? "ok     " : "PROBLEM"}  ${f.name}: ${f.message}\n`);
    io.out(
      failed.length === 0
        ? `\nthe ${env} Worker configuration is ready to deploy (npx wrangler deploy --config ${file} --env ${env})\n`
        : `\n${failed.length} problem(s) in the ${env} Worker configuration (${file}); fix them before \`wrangler deploy\`\n`,
    );
  }
  return failed.length === 0 ? 0 : 1;
}
