// The flags of `relevance rollout --shadow-first`, checked before anything is read or written.
import { type FlagSpec, USAGE_EXIT } from "../args.ts";
import { UserError } from "../io.ts";
import type { Flags } from "./procedure.ts";
import type { GateOptions } from "./shadow-gate.ts";

export const DEFAULT_MIN_OUTCOMES = 200;
export const DEFAULT_MARGIN = 0.02;
export const DEFAULT_DEADLINE = "24h";
/** The most paired searches with a click a gate may wait for (the report reads at most 90 days). */
export const MAX_MIN_OUTCOMES = 1_000_000;

export const gateFlags: FlagSpec = {
  "shadow-first": {
    type: "boolean",
    help: "judge the candidate in shadow on live searches first; switch only if it is at least as good",
  },
  "min-outcomes": {
    type: "string",
    help: `paired searches with a click to wait for (default ${DEFAULT_MIN_OUTCOMES})`,
  },
  margin: {
    type: "string",
    help: `how much lower the candidate's AUC and τ-b may be (default ${DEFAULT_MARGIN})`,
  },
  deadline: { type: "string", help: `how long to wait: 30m, 6h, 2d (default ${DEFAULT_DEADLINE})` },
  poll: { type: "string", help: "seconds between reads of the live comparison (default 2 local, 60 cloud)" },
  "shadow-sample-rate": {
    type: "string",
    help: "share of scored searches scored in shadow, 0 to 1 (default 1)",
  },
  canary: {
    type: "string",
    help: "percent of shoppers (by X-MS-USER-ID) the candidate serves meanwhile, 0 to 100",
  },
};

const usage = (message: string) => new UserError(message, USAGE_EXIT);
const DURATION = /^([1-9][0-9]{0,5})([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function number(flags: Flags, name: string, min: number, max: number, integer = false): number | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (
    typeof raw !== "string" ||
    raw.trim() === "" ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  )
    throw usage(
      `--${name} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, got "${String(raw)}"`,
    );
  return value;
}

/** The gate's options, or null without --shadow-first (whose companions are then refused). */
export function gateOptions(flags: Flags): (Omit<GateOptions, "pollMs"> & { pollMs: number | null }) | null {
  const companions = ["min-outcomes", "margin", "deadline", "poll", "shadow-sample-rate", "canary"];
  if (flags["shadow-first"] !== true) {
    const stray = companions.find((c) => flags[c] !== undefined);
    if (stray !== undefined) throw usage(`--${stray} needs --shadow-first`);
    return null;
  }
  const deadlineText = (flags.deadline as string | undefined) ?? DEFAULT_DEADLINE;
  const d = DURATION.exec(deadlineText);
  if (d === null) throw usage(`--deadline must be a duration such as 30m, 6h or 2d, got "${deadlineText}"`);
  const deadlineMs = Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  if (deadlineMs > 90 * UNIT_MS.d) throw usage("--deadline must be at most 90d (the live report's range)");
  const poll = number(flags, "poll", 1, 3600);
  return {
    minOutcomes: number(flags, "min-outcomes", 1, MAX_MIN_OUTCOMES, true) ?? DEFAULT_MIN_OUTCOMES,
    margin: number(flags, "margin", 0, 1) ?? DEFAULT_MARGIN,
    deadlineMs,
    pollMs: poll === undefined ? null : poll * 1000,
    sampleRate: number(flags, "shadow-sample-rate", 0.01, 1) ?? 1,
    canaryPercent: number(flags, "canary", 0, 100) ?? null,
  };
}
