// `relevance features export --from-events`: training data from what shoppers did. Pages through the
// admin API's training rows (per query: its searches, the searches with a click and with a
// conversion, the feature vector of its most recent served search) and writes the JSON lines
// `relevance features log` writes and training/train_xgboost.py reads, with a label measured from
// the outcomes:
//
//   --label ctr (default)   label = 10 × clicked searches / searches of the query
//   --label conversion      label = 10 × converted searches / searches of the query
//
// Queries with fewer searches than --min-impressions are left out (their rate says little) and
// counted in the summary. The file is streamed page by page (memory bounded by one page) into a
// temporary sibling renamed into place at the end: a failure leaves no partial file.
import { FEATURE_SET_V1, type FeatureRecord, isPlainObject } from "@relevance/core";
import { UserError } from "../io.ts";
import { openStreamFile, type StreamFile } from "../stream-file.ts";
import type { AdminAuth } from "./admin-auth.ts";
import type { Flags, Procedure } from "./procedure.ts";
import { accountFlag, indexFlag } from "./validate.ts";

export const LABELS = ["ctr", "conversion"] as const;
export type LabelKind = (typeof LABELS)[number];
/** Searches a query needs by default (DEFAULT_MIN_IMPRESSIONS of @relevance/outcomes, the route's default). */
export const DEFAULT_EXPORT_MIN_IMPRESSIONS = 5;
export const MAX_EXPORT_MIN_IMPRESSIONS = 1_000_000;
/** Rows asked per page: the admin route's maximum page. */
export const EXPORT_PAGE_ROWS = 1000;
const TIMEOUT_MS = 30_000;
const INSTANT = /^(\d{1,7}[hd]|\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?)$/;

/** One row of `GET …/training-rows`. */
export interface TrainingRow {
  queryKey: string;
  query: string;
  modelId: string;
  features: number[];
  impressions: number;
  clicked: number;
  converted: number;
  lastServedAt: number;
}

export interface TrainingPage {
  featureSet: string[];
  rows: TrainingRow[];
  next: string | null;
}

/** Fetches the page after `after` (the first page when undefined). */
export type FetchPage = (after: string | undefined) => Promise<TrainingPage>;

/** The label of a query's row: 10 × the share of its searches with a click (or a conversion). */
export function outcomeLabel(
  row: Pick<TrainingRow, "impressions" | "clicked" | "converted">,
  kind: LabelKind,
) {
  if (row.impressions <= 0) return 0;
  const hits = kind === "ctr" ? row.clicked : row.converted;
  return (10 * Math.min(hits, row.impressions)) / row.impressions;
}

/** The output line of one row: the shape `relevance features log` writes, plus the counts behind the label. */
export function exportLine(row: TrainingRow, kind: LabelKind): string {
  const features = {} as FeatureRecord;
  FEATURE_SET_V1.forEach((name, i) => {
    features[name] = row.features[i] as number;
  });
  return `${JSON.stringify({
    q: row.query,
    features,
    label: outcomeLabel(row, kind),
    impressions: row.impressions,
    clicks: row.clicked,
    conversions: row.converted,
    modelId: row.modelId,
    queryKey: row.queryKey,
  })}\n`;
}

export interface ExportSummary {
  rows: number;
  /** Queries with searches in the range but fewer than the minimum, and their searches. */
  leftOut: number;
  leftOutImpressions: number;
  pages: number;
  /** Rows per model id. */
  models: Record<string, number>;
}

/**
 * Follows the pages from the first to the one whose `next` is null, writing one line per query with
 * at least `minImpressions` searches; reports after each page.
 */
export async function exportTrainingRows(options: {
  fetchPage: FetchPage;
  write: (text: string) => Promise<void>;
  label: LabelKind;
  minImpressions: number;
  onPage?: (summary: ExportSummary) => void;
}): Promise<ExportSummary> {
  const summary: ExportSummary = { rows: 0, leftOut: 0, leftOutImpressions: 0, pages: 0, models: {} };
  let after: string | undefined;
  for (;;) {
    const page = await options.fetchPage(after);
    if (page.featureSet.join(",") !== FEATURE_SET_V1.join(","))
      throw new UserError(
        `the admin API serves feature set [${page.featureSet.join(", ")}], not v1: update relevance`,
      );
    summary.pages += 1;
    let text = "";
    for (const row of page.rows) {
      if (row.features.length !== FEATURE_SET_V1.length)
        throw new UserError(
          `the row of query ${JSON.stringify(row.queryKey)} has ${row.features.length} features, not ${FEATURE_SET_V1.length}`,
        );
      if (row.impressions < options.minImpressions) {
        summary.leftOut += 1;
        summary.leftOutImpressions += row.impressions;
        continue;
      }
      text += exportLine(row, options.label);
      summary.rows += 1;
      summary.models[row.modelId] = (summary.models[row.modelId] ?? 0) + 1;
    }
    if (text !== "") await options.write(text);
    options.onPage?.(summary);
    if (page.next === null) return summary;
    // The store orders queryKeys by their UTF-8 bytes, which JavaScript's < does not: only a
    // cursor that repeats is a sure sign of a loop.
    if (page.next === after)
      throw new UserError(`the admin API's next page (${JSON.stringify(page.next)}) does not move forward`);
    after = page.next;
  }
}

/** The admin API's training rows, page by page: `GET …/accounts/{id}/indexes/{index}/training-rows`. */
export function trainingRowsPages(options: {
  baseUrl: string;
  auth: AdminAuth;
  account: string;
  index: string;
  since: string;
  until?: string | undefined;
  model?: string | undefined;
  fetch?: typeof fetch;
}): FetchPage {
  const doFetch = options.fetch ?? fetch;
  return async (after) => {
    const params = new URLSearchParams({
      since: options.since,
      minImpressions: "1",
      limit: String(EXPORT_PAGE_ROWS),
    });
    if (options.until !== undefined) params.set("until", options.until);
    if (options.model !== undefined) params.set("model", options.model);
    if (after !== undefined) params.set("after", after);
    const url = `${options.baseUrl}/api/v1/admin/accounts/${encodeURIComponent(options.account)}/indexes/${encodeURIComponent(options.index)}/training-rows?${params}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        headers: await options.auth.headers({ method: "GET", url, headers: {} }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new UserError(`cannot reach the admin API at ${new URL(url).origin} (${cause}); is it running?`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text is the message
    }
    if (
      res.status === 200 &&
      isPlainObject(body) &&
      Array.isArray(body.rows) &&
      Array.isArray(body.featureSet)
    )
      return body as unknown as TrainingPage;
    const error = isPlainObject(body) && isPlainObject(body.error) ? body.error : undefined;
    const message = error === undefined ? String(text).slice(0, 200) : String(error.message);
    if (error?.code === "recording_not_configured")
      throw new UserError(
        `the environment records no searches or outcomes (503 recording_not_configured): configure its outcome store first`,
      );
    if (res.status === 401 || res.status === 403)
      throw new UserError(
        `the admin API refused ADMIN_TOKEN (${res.status}): set the token of this environment`,
      );
    throw new UserError(`the admin API answered ${res.status}: ${message}`);
  };
}

interface ExportInput {
  account: string;
  index: string;
  out: string;
  since: string;
  until: string | undefined;
  model: string | undefined;
  label: LabelKind;
  minImpressions: number;
}

function instantFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name] as string | undefined;
  if (value !== undefined && !INSTANT.test(value))
    throw new UserError(`--${name} must be a duration (30d, 12h) or an ISO time, got "${value}"`, 2);
  return value;
}

export const featuresExport: Procedure<ExportInput> = {
  name: "features export",
  summary:
    "training data from shoppers' outcomes: per query its feature vector as served and a label from its click-through (or conversion) rate",
  usage:
    "relevance features export --from-events --env E --account A --index I --out features.jsonl [--since 30d] [--until T] [--model ID] [--min-impressions 5] [--label ctr|conversion] [--json]",
  examples: [
    "relevance features export --from-events --env local --account acct_3f9c2a7b10de --index products --out features.jsonl",
    "relevance features export --from-events --env prod --account acct_3f9c2a7b10de --index products --since 14d --min-impressions 20 --label conversion --out features.jsonl",
  ],
  flags: {
    "from-events": {
      type: "boolean",
      help: "read the recorded searches and outcome events (the only source; relevance features log runs queries through search)",
    },
    account: { type: "string", required: true, help: "the system account id that owns the index" },
    index: { type: "string", required: true, help: "the index (or alias) as the searches named it" },
    out: { type: "string", required: true, help: "the JSON-lines training file to write" },
    since: {
      type: "string",
      help: "start of the range: a duration back from --until (30d, 12h) or an ISO time (default 30d)",
    },
    until: {
      type: "string",
      help: "end of the range: a duration back from now or an ISO time (default now)",
    },
    model: { type: "string", help: "only searches this model scored (default every model)" },
    "min-impressions": {
      type: "string",
      help: `searches a query needs to be a row, 1 to ${MAX_EXPORT_MIN_IMPRESSIONS} (default ${DEFAULT_EXPORT_MIN_IMPRESSIONS})`,
    },
    label: {
      type: "string",
      help: "ctr: 10 × searches with a click / searches (default); conversion: the same with conversions",
    },
  },
  needsAdmin: true,
  async prepare(flags) {
    if (flags["from-events"] !== true)
      throw new UserError(
        "--from-events is required: the export reads recorded searches and outcome events (relevance features log runs queries through search instead)",
        2,
      );
    const label = (flags.label as string | undefined) ?? "ctr";
    if (!(LABELS as readonly string[]).includes(label))
      throw new UserError(`--label must be ctr or conversion, got "${label}"`, 2);
    const rawMin = (flags["min-impressions"] as string | undefined) ?? String(DEFAULT_EXPORT_MIN_IMPRESSIONS);
    const minImpressions = Number(rawMin);
    if (!/^\d{1,7}$/.test(rawMin) || minImpressions < 1 || minImpressions > MAX_EXPORT_MIN_IMPRESSIONS)
      throw new UserError(
        `--min-impressions must be an integer from 1 to ${MAX_EXPORT_MIN_IMPRESSIONS}, got ${rawMin}`,
        2,
      );
    const model = flags.model as string | undefined;
    if (model !== undefined && (model === "" || model.length > 256))
      throw new UserError("--model must be a model id of 1 to 256 characters", 2);
    return {
      account: accountFlag(flags),
      index: indexFlag(flags),
      out: flags.out as string,
      since: instantFlag(flags, "since") ?? "30d",
      until: instantFlag(flags, "until"),
      model,
      label: label as LabelKind,
      minImpressions,
    };
  },
  async run(ctx, input) {
    const { report, env } = ctx;
    if (ctx.adminAuth === undefined) throw new Error("the admin API's authentication is missing");
    const fetchPage = trainingRowsPages({
      baseUrl: env.adminBaseUrl,
      auth: ctx.adminAuth(),
      account: input.account,
      index: input.index,
      since: input.since,
      until: input.until,
      model: input.model,
    });
    const file: StreamFile = await openStreamFile(input.out);
    let summary: ExportSummary;
    try {
      summary = await exportTrainingRows({
        fetchPage,
        write: (text) => file.write(text),
        label: input.label,
        minImpressions: input.minImpressions,
        onPage: (s) => report.note(`exported ${s.rows} queries (${s.pages} pages read)`),
      });
      await file.commit();
    } catch (error) {
      await file.abort();
      throw error;
    }
    const models = Object.entries(summary.models)
      .map(([id, n]) => `${id}: ${n}`)
      .join(", ");
    report.step(
      "export",
      `wrote ${input.out}: ${summary.rows} queries with at least ${input.minImpressions} searches from ${env.name} ${input.account}/${input.index} since ${input.since}, label ${input.label === "ctr" ? "10 × click-through rate" : "10 × conversion rate"}` +
        `${models === "" ? "" : ` (${models})`}; ${summary.leftOut} queries under the minimum left out (${summary.leftOutImpressions} searches)`,
      { out: input.out, ...summary },
    );
    if (summary.rows === 0)
      report.warn(
        "no query had enough searches: lower --min-impressions, widen --since, or let shoppers search longer",
      );
    return { out: input.out, label: input.label, minImpressions: input.minImpressions, ...summary };
  },
};
