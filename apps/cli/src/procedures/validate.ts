// Flag checks that need no store: malformed values are usage errors (exit 2), found before anything
// is read or written.
import {
  ARTIFACT_MAX_BYTES_ENV,
  artifactMaxBytes,
  artifactTooLargeMessage,
  formatIssues,
  type LoadedModel,
  loadArtifact,
  type ModelIdParts,
  parseModelId,
  type RelevanceTriggerConfig,
  validateRelevanceTriggerConfig,
} from "@relevance/core";
import { INDEX_NAME, INDEX_NAME_RULE } from "@relevance/settings";
import { nullable, USAGE_EXIT } from "../args.ts";
import { type Io, UserError } from "../io.ts";
import type { Flags } from "./procedure.ts";

const usage = (message: string): UserError => new UserError(message, USAGE_EXIT);

export function modelIdFlag(flags: Flags, name = "model-id"): ModelIdParts & { id: string } {
  const id = flags[name] as string;
  const parts = parseModelId(id);
  if (parts === null) throw usage(`--${name} must be <account>:<index>:v<n>, got "${id}"`);
  return { ...parts, id };
}

export function indexFlag(flags: Flags, name = "index"): string {
  const value = flags[name] as string;
  if (!INDEX_NAME.test(value)) throw usage(`--${name} must be ${INDEX_NAME_RULE}, got "${value}"`);
  return value;
}

export function accountFlag(flags: Flags, name = "account"): string {
  const value = flags[name] as string;
  if (!/^[^:\s]{1,128}$/.test(value))
    throw usage(`--${name} must be a system account id (no spaces or ":"), got "${value}"`);
  return value;
}

/** The model id's account must be --account; its index --index (or, for an alias, the index it points at: checked later). */
export function modelOfAccount(model: ModelIdParts & { id: string }, account: string): void {
  if (model.account !== account)
    throw new UserError(`model id ${model.id} belongs to account ${model.account}, not --account ${account}`);
}

export function timeoutFlag(flags: Flags): number | undefined {
  const raw = flags.timeout as string | undefined;
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || seconds <= 0 || seconds > 3600)
    throw usage(`--timeout must be a number of seconds from 0 to 3600, got "${raw}"`);
  return seconds;
}

export function apiKeyFlag(flags: Flags): string {
  const key = flags["api-key"] as string;
  if (key.trim() === "" || /[\r\n]/.test(key)) throw usage("--api-key must be a search API key");
  return key;
}

/** --model-id, --title-field and --tags-field as the admin API's config; `null` means null. */
export function configFlags(flags: Flags): RelevanceTriggerConfig {
  const config = validateRelevanceTriggerConfig({
    modelId: flags["model-id"],
    titleField: nullable(flags["title-field"] as string),
    tagsField: nullable(flags["tags-field"] as string),
  });
  if (!config.ok) throw usage(formatIssues(config.errors).replace(/relevanceTriggerConfig\./g, ""));
  return config.value as RelevanceTriggerConfig;
}

export interface CheckedArtifact {
  text: string;
  loaded: LoadedModel;
  bytes: number;
}

/** The `--max-bytes` flag of artifact commands: the artifact limit for this run. */
export const maxBytesFlag = {
  "max-bytes": {
    type: "string" as const,
    help: `artifact limit in bytes (default $${ARTIFACT_MAX_BYTES_ENV}, else 8 MiB; at most 25 MiB, the KV value limit)`,
  },
};

/** The artifact limit: `--max-bytes`, else `MODEL_MAX_BYTES`, else 8 MiB; a bad value is a usage error. */
export function artifactLimit(flags: Flags, env: NodeJS.ProcessEnv = process.env): number {
  const raw = flags["max-bytes"] as string | undefined;
  const limit = artifactMaxBytes(raw ?? env[ARTIFACT_MAX_BYTES_ENV]);
  if (!limit.ok) {
    const message = formatIssues(limit.errors);
    throw usage(raw === undefined ? message : message.replace(ARTIFACT_MAX_BYTES_ENV, "--max-bytes"));
  }
  return limit.value;
}

/**
 * Reads an artifact file and loads it as the search proxy would, re-checking its golden rows. The
 * file's size is checked from its metadata before it is read: an oversized file is refused without
 * reading or parsing it, and nothing is written.
 */
export async function readArtifactFile(io: Io, path: string, maxBytes: number): Promise<CheckedArtifact> {
  const size = (await io.fileBytes?.(path)) ?? null;
  if (size !== null && size > maxBytes)
    throw new UserError(`${path}: ${artifactTooLargeMessage(size, maxBytes)}`);
  const text = await io.readText(path);
  const loaded = loadArtifact(text, { checkGolden: true, maxBytes });
  if (
    !loaded.ok &&
    loaded.errors.length === 1 &&
    loaded.errors[0]?.message.includes(ARTIFACT_MAX_BYTES_ENV)
  ) {
    throw new UserError(`${path}: ${loaded.errors[0].message}`);
  }
  if (!loaded.ok)
    throw new UserError(`${path} does not load as a model artifact: ${formatIssues(loaded.errors)}`);
  return { text, loaded: loaded.value, bytes: Buffer.byteLength(text, "utf8") };
}

/** The artifact must carry `modelId` and be for the index in it. */
export function checkArtifactId(
  path: string,
  artifact: CheckedArtifact,
  model: ModelIdParts & { id: string },
): void {
  const a = artifact.loaded.artifact;
  if (a.modelId !== model.id)
    throw new UserError(
      `${path} carries modelId ${a.modelId}, not ${model.id}; export it again with --model-id ${model.id}`,
    );
  if (a.index !== model.index)
    throw new UserError(`${path} is a model of index ${a.index}, but ${model.id} names index ${model.index}`);
}
