// The canary config's admin route: one case per bound of docs/limits.md (the rows live in
// @relevance/outcomes' canary-config.ts). Node only: the Worker serves search, not the admin API.
// The body is checked before the artifact is looked up, so no model needs uploading.

import { CANARY_LIMITS } from "@relevance/outcomes";
import type { HostileCase, HostileContext, HostileRequest } from "./catalogue.ts";
import { limitOf } from "./catalogue.ts";

const C = (field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(CANARY_LIMITS, "admin", field, unit);
const canary =
  (config: (ctx: HostileContext) => unknown) =>
  (ctx: HostileContext): HostileRequest[] => [
    {
      method: "PUT",
      path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/relevance-canary-config`,
      headers: { "content-type": "application/json", authorization: `Bearer ${ctx.adminToken}` },
      body: JSON.stringify({ relevanceCanaryConfig: config(ctx) }),
    },
  ];

export const CANARY_CASES: HostileCase[] = [
  {
    id: "admin-canary-config-model-id",
    proves: "limit: relevanceCanaryConfig.modelId",
    surfaces: ["node"],
    requests: canary((ctx) => ({
      modelId: `${ctx.account}:${ctx.index}:v${"9".repeat(C("relevanceCanaryConfig.modelId", "characters"))}`,
      percent: 1,
    })),
    expect: { status: 422, code: "validation_failed", path: "relevanceCanaryConfig.modelId" },
  },
  {
    id: "admin-canary-config-percent",
    proves: "limit: relevanceCanaryConfig.percent",
    surfaces: ["node"],
    requests: canary((ctx) => ({
      modelId: `${ctx.account}:${ctx.index}:v2`,
      percent: C("relevanceCanaryConfig.percent", "percent") + 0.5,
    })),
    expect: { status: 422, code: "validation_failed", path: "relevanceCanaryConfig.percent" },
  },
];
