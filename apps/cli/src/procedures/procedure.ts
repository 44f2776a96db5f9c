// The frame every operating procedure runs in: strict flags, then the procedure's own
// checks (flag forms, files, artifacts) BEFORE any store is touched, then the environment, then the
// steps. `--json` prints one object with the steps and the result, also when a step fails.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatIssues, parseJson } from "@relevance/core";
import { type FlagSpec, parseFlags, USAGE_EXIT } from "../args.ts";
import {
  ENVIRONMENT_NAMES,
  type Environment,
  type EnvironmentName,
  resolveEnvironment,
  validateEnvironments,
} from "../environments.ts";
import { type Io, UserError } from "../io.ts";
import { type AdminAuth, adminAuthFor } from "./admin-auth.ts";
import { AdminApi } from "./http.ts";
import { Report } from "./report.ts";

export type Flags = Record<string, string | boolean | undefined>;

export interface ProcedureContext {
  env: Environment;
  io: Io;
  report: Report;
  /** The caller's clock for the 24 h grace period (RELEVANCE_NOW overrides it, on `local` only). */
  now: () => Date;
  /** RELEVANCE_NOW is set: `now` is the override, taken as is (else it is checked against the store's clock). */
  clockOverridden: boolean;
  /** The admin API; only for procedures that declare `needsAdmin` (ADMIN_TOKEN is checked first). */
  admin: () => AdminApi;
  /** How requests to the admin API authenticate (for calls AdminApi does not wrap); `needsAdmin` only. */
  adminAuth?: () => AdminAuth;
  /** How long to poll for propagation when `--timeout` is not given (Workers KV takes up to ~60 s). */
  defaultTimeoutS: number;
}

export interface Procedure<P> {
  name: string;
  summary: string;
  usage: string;
  /** At least one complete command line, shown by `--help` (people copy an example before reading flags). */
  examples: string[];
  flags: FlagSpec;
  needsAdmin: boolean;
  /** Checks the flags (and reads local files) without touching any store; throws UserError. */
  prepare(flags: Flags, io: Io): Promise<P>;
  /** The steps; returns the result fields for `--json`. */
  run(ctx: ProcedureContext, input: P): Promise<Record<string, unknown>>;
}

export const COMMON_FLAGS: FlagSpec = {
  env: { type: "string", required: true, help: `environment: ${ENVIRONMENT_NAMES.join(", ")}` },
  json: { type: "boolean", help: "print one JSON object (steps and result) instead of text" },
  config: {
    type: "string",
    help: "environments file (default $RELEVANCE_ENVIRONMENTS, else relevance.environments.json at the repository root)",
  },
};

/** The repository's environments file. */
export const DEFAULT_ENVIRONMENTS_FILE = fileURLToPath(
  new URL("../../../../relevance.environments.json", import.meta.url),
);

/**
 * RELEVANCE_NOW: an ISO time that replaces the clock of the grace period in what is reported
 * (rehearsing "what would prune do tomorrow" on the local stack); deletes refuse while it is set
 * (refuseDeleteWithMovedClock). Refused on any other environment outright.
 */
export function clockFrom(env: NodeJS.ProcessEnv, envName: EnvironmentName): () => Date {
  const fixed = env.RELEVANCE_NOW;
  if (fixed === undefined || fixed === "") return () => new Date();
  if (envName !== "local")
    throw new UserError(
      `RELEVANCE_NOW is refused for --env ${envName}: it moves the clock of the 24 h grace period (prune, model delete), which is only for tests and rehearsals on --env local; unset RELEVANCE_NOW`,
    );
  const at = Date.parse(fixed);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}T/.test(fixed))
    throw new UserError(`RELEVANCE_NOW must be an ISO time such as 2026-11-22T12:00:00Z, got "${fixed}"`);
  return () => new Date(at);
}

/**
 * RELEVANCE_NOW only rehearses: `prune` without `--yes` reports what it would delete at that time.
 * Nothing is deleted while it is set, so a value left exported from a rehearsal can never end a
 * serving model's grace period early (the grace period of a real delete runs on the real clock).
 */
export function refuseDeleteWithMovedClock(ctx: ProcedureContext): void {
  if (!ctx.clockOverridden) return;
  throw new UserError(
    "RELEVANCE_NOW is set: it only rehearses what prune would delete at that time (prune without --yes); nothing is deleted while it is set: unset RELEVANCE_NOW to delete",
  );
}

/** The environments of `--config F`, else `$RELEVANCE_ENVIRONMENTS`, else the repository's file (absent: only `local`). */
export async function loadEnvironments(flag: string | undefined, env: NodeJS.ProcessEnv, io: Io) {
  const explicit = flag ?? (env.RELEVANCE_ENVIRONMENTS || undefined);
  const path = explicit ?? DEFAULT_ENVIRONMENTS_FILE;
  // Without an environments file `local` still works (it needs nothing from the file).
  if (explicit === undefined && !existsSync(path)) return {};
  const json = parseJson(await io.readText(path), path);
  if (!json.ok) throw new UserError(formatIssues(json.errors));
  const valid = validateEnvironments(json.value);
  if (!valid.ok) throw new UserError(`${path}: ${formatIssues(valid.errors)}`);
  return valid.value;
}

/** Runs a procedure: returns the exit code, or throws UserError (printed as one line by the router). */
export async function runProcedure<P>(
  procedure: Procedure<P>,
  argv: string[],
  io: Io,
  processEnv: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const flags = parseFlags(procedure.name, { ...procedure.flags, ...COMMON_FLAGS }, argv);
  const envName = flags.env as string;
  if (!(ENVIRONMENT_NAMES as readonly string[]).includes(envName)) {
    throw new UserError(`unknown environment "${envName}" (use ${ENVIRONMENT_NAMES.join(", ")})`, USAGE_EXIT);
  }
  const now = clockFrom(processEnv, envName as EnvironmentName);
  const input = await procedure.prepare(flags, io);
  const adminToken = processEnv.ADMIN_TOKEN || undefined;
  if (procedure.needsAdmin && adminToken === undefined) {
    throw new UserError(
      `ADMIN_TOKEN is not set; it is needed for the admin API of ${envName}: export ADMIN_TOKEN=<token> (npm start prints the local one)`,
    );
  }
  const configs = await loadEnvironments(flags.config as string | undefined, processEnv, io);
  const resolved = resolveEnvironment(envName, configs, processEnv);
  if (!resolved.ok) throw new UserError(formatIssues(resolved.errors));
  const env = resolved.value;
  const report = new Report(io, flags.json === true);
  const context: ProcedureContext = {
    env,
    io,
    report,
    now,
    clockOverridden: Boolean(processEnv.RELEVANCE_NOW),
    admin: () => new AdminApi(env.adminBaseUrl, adminAuthFor(env.adminSigning, adminToken ?? "")),
    adminAuth: () => adminAuthFor(env.adminSigning, adminToken ?? ""),
    defaultTimeoutS: env.name === "local" ? 10 : 90,
  };
  const frame = { command: procedure.name, env: envName as EnvironmentName };
  try {
    const result = await procedure.run(context, input);
    if (report.json) {
      const out = { ok: true, ...frame, ...result, steps: report.steps, warnings: report.warnings };
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    }
    return 0;
  } catch (error) {
    report.closeProgress();
    // A store or network failure is an operational fault, not a bug: one line, like bad input.
    const failure =
      error instanceof UserError ? error : new UserError(`${(error as Error).message.split("\n")[0]}`);
    if (!(error instanceof UserError) && processEnv.RELEVANCE_DEBUG) io.err(`${(error as Error).stack}\n`);
    if (report.json) {
      const out = {
        ok: false,
        ...frame,
        error: failure.message,
        steps: report.steps,
        warnings: report.warnings,
      };
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    }
    throw failure;
  } finally {
    env.close();
  }
}
