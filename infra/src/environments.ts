/**
 * The search environments as the stacks need them, read from relevance.environments.json (the same
 * file the `relevance` CLI uses, docs/operations.md), so a namespace or account id is filled in once.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Issue, Result } from "@shared/kernel";

export const SEARCH_ENVIRONMENTS = ["dev", "staging", "preprod", "prod"] as const;
export type SearchEnvironmentName = (typeof SEARCH_ENVIRONMENTS)[number];

export interface SearchEnvironment {
  name: SearchEnvironmentName;
  /** AWS region of the settings table and the Lambdas. */
  awsRegion: string;
  /** `{env}-EcomIndexSettingsTable`: the admin Lambda derives the same name from ENV. */
  settingsTable: string;
  /** Workers KV namespace of the environment; "" until filled in (the stack then asks at deploy). */
  kvNamespaceId: string;
  /** Cloudflare account that holds the namespace (prod has its own); "" until filled in. */
  storeAccountId: string;
}

export type { Issue, Result };

export const ENVIRONMENTS_FILE = fileURLToPath(new URL("../../relevance.environments.json", import.meta.url));

const CLOUDFLARE_ID = /^[0-9a-f]{32}$/;
const AWS_REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every search environment of the file, checked; every problem is reported with its path. */
export function validateSearchEnvironments(input: unknown): Result<SearchEnvironment[]> {
  if (!isObject(input)) return { ok: false, errors: [{ path: "", message: "must be a JSON object" }] };
  const errors: Issue[] = [];
  const out: SearchEnvironment[] = [];
  for (const name of SEARCH_ENVIRONMENTS) {
    const entry = input[name];
    if (!isObject(entry)) {
      errors.push({ path: name, message: "is missing: every search environment needs an entry" });
      continue;
    }
    const text = (field: string): string => {
      const v = entry[field];
      if (typeof v === "string") return v;
      errors.push({ path: `${name}.${field}`, message: "must be a string" });
      return "";
    };
    const env: SearchEnvironment = {
      name,
      awsRegion: text("awsRegion"),
      settingsTable: text("settingsTable"),
      kvNamespaceId: text("kvNamespaceId"),
      storeAccountId: text("storeAccountId"),
    };
    if (entry.kind !== "cloud") errors.push({ path: `${name}.kind`, message: 'must be "cloud"' });
    if (!AWS_REGION.test(env.awsRegion)) {
      errors.push({ path: `${name}.awsRegion`, message: "must be an AWS region such as eu-west-1" });
    }
    if (env.settingsTable !== `${name}-EcomIndexSettingsTable`) {
      errors.push({
        path: `${name}.settingsTable`,
        message: `must be ${name}-EcomIndexSettingsTable (the admin Lambda derives the table name from ENV)`,
      });
    }
    for (const field of ["kvNamespaceId", "storeAccountId"] as const) {
      if (env[field] !== "" && !CLOUDFLARE_ID.test(env[field])) {
        errors.push({
          path: `${name}.${field}`,
          message: "must be empty or a Cloudflare id (32 hex digits)",
        });
      }
    }
    out.push(env);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: out };
}

/** Reads and checks the environments file; throws one line per problem (synth must not guess). */
export function readSearchEnvironments(file = ENVIRONMENTS_FILE): SearchEnvironment[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const checked = validateSearchEnvironments(parsed);
  if (!checked.ok) {
    throw new Error(`${file}:\n${checked.errors.map((e) => `  ${e.path}: ${e.message}`).join("\n")}`);
  }
  return checked.value;
}
