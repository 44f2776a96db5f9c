// `relevance quality`: the live-quality report of an index through the admin API (GET
// .../indexes/{index}/quality), printed per model as text, or as the report itself with --json.
import { type QualityReport, QualityReportSchema } from "@relevance/outcomes";
import { type FlagSpec, USAGE_EXIT } from "../args.ts";
import { UserError } from "../io.ts";
import type { Procedure } from "./procedure.ts";
import { qualityText } from "./quality-text.ts";
import { accountFlag, indexFlag } from "./validate.ts";

const FLAGS: FlagSpec = {
  account: { type: "string", required: true, help: "system account id" },
  index: { type: "string", required: true, help: "index or alias name" },
  since: { type: "string", help: "how far back: 7d, 24h, 90m or an ISO time (default 7d, at most 90 days)" },
  until: { type: "string", help: "end of the range, an ISO time (default now)" },
  model: { type: "string", help: "only this model id's searches" },
  "min-impressions": { type: "string", help: "searches a query needs to count for τ and ρ (default 5)" },
};

interface QualityInput {
  account: string;
  index: string;
  params: Record<string, string>;
}

export const quality: Procedure<QualityInput> = {
  name: "quality",
  summary:
    "live quality of an index per model: searches, score histogram per day, calibration by decile, Kendall τ, Spearman ρ, AUC, with sample sizes and intervals",
  usage:
    "relevance quality --env E --account A --index I [--since 7d] [--until T] [--model M] [--min-impressions N] [--json]",
  examples: [
    "relevance quality --env local --account acct_3f9c2a7b10de --index products",
    "relevance quality --env prod --account acct_3f9c2a7b10de --index products --since 30d --model acct_3f9c2a7b10de:products:v3 --json",
  ],
  flags: FLAGS,
  needsAdmin: true,
  async prepare(flags) {
    const params: Record<string, string> = {};
    for (const [flag, param] of [
      ["since", "since"],
      ["until", "until"],
      ["model", "model"],
      ["min-impressions", "minImpressions"],
    ] as const) {
      const value = flags[flag];
      if (typeof value === "string") {
        if (value === "") throw new UserError(`--${flag} must not be empty`, USAGE_EXIT);
        params[param] = value;
      }
    }
    return { account: accountFlag(flags), index: indexFlag(flags), params };
  },
  async run(ctx, input) {
    const body = await ctx.admin().quality(input.account, input.index, input.params);
    const parsed = QualityReportSchema.safeParse(body);
    if (!parsed.success) {
      throw new UserError("the admin API answered a quality report this version of relevance cannot read");
    }
    const report: QualityReport = parsed.data;
    if (!ctx.report.json) ctx.io.out(qualityText(report));
    ctx.report.steps.push({
      step: "quality",
      message: `${report.models.length} model(s), ${report.models.reduce((s, m) => s + m.searches, 0)} searches`,
    });
    return { report };
  },
};
