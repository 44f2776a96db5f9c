// The live-quality report's query: one case per bound of docs/limits.md (the rows live in
// @relevance/outcomes' quality-params.ts). Node only: the Worker serves search, not the admin API.
// The bounds are checked before anything else, so they answer 422 also where nothing is recorded.

import { ADMIN_LIMITS } from "@relevance/admin";
import type { HostileCase, HostileContext, HostileRequest } from "./catalogue.ts";
import { limitOf } from "./catalogue.ts";

const Q = (field: string, unit: Parameters<typeof limitOf>[3]) => limitOf(ADMIN_LIMITS, "admin", field, unit);
const node = ["node"] as const;
const invalid = (path: string) => ({ status: 422, code: "validation_failed", path });
const quality =
  (query: string) =>
  (ctx: HostileContext): HostileRequest[] => [
    {
      method: "GET",
      path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/quality?${query}`,
      headers: { authorization: `Bearer ${ctx.adminToken}` },
    },
  ];

export const QUALITY_CASES: HostileCase[] = [
  {
    id: "quality-range",
    proves: "limit: the quality report's range (since)",
    surfaces: node,
    requests: quality(`since=${Q("since", "days") + 1}d`),
    expect: invalid("since"),
  },
  {
    id: "quality-model",
    proves: "limit: the quality report's model",
    surfaces: node,
    requests: quality(`model=${"m".repeat(Q("model", "characters") + 1)}`),
    expect: invalid("model"),
  },
  {
    id: "quality-min-impressions",
    proves: "limit: the quality report's minImpressions",
    surfaces: node,
    requests: quality(`minImpressions=${Q("minImpressions", "items") + 1}`),
    expect: invalid("minImpressions"),
  },
];
