// The training export's admin route (GET …/training-rows): one case per bound of docs/limits.md (its
// rows live in @relevance/outcomes' training-limits.ts). Node only: the Worker serves search. A query
// beyond a bound answers 422 before the outcome store is read, so the cases hold with or without one.

import { ADMIN_LIMITS } from "@relevance/admin";
import type { HostileCase, HostileContext, HostileRequest } from "./catalogue.ts";
import { limitOf } from "./catalogue.ts";

const T = (field: string, unit: Parameters<typeof limitOf>[3]) =>
  limitOf(ADMIN_LIMITS, "admin", `training-rows ${field}`, unit);
const node = ["node"] as const;
const invalid = (path: string) => ({ status: 422, code: "validation_failed", path });

const rows =
  (query: string) =>
  (ctx: HostileContext): HostileRequest[] => [
    {
      method: "GET",
      path: `/api/v1/admin/accounts/${ctx.account}/indexes/${ctx.index}/training-rows?${query}`,
      headers: { authorization: `Bearer ${ctx.adminToken}` },
    },
  ];

export const TRAINING_CASES: HostileCase[] = [
  {
    id: "training-rows-limit",
    proves: "limit: rows per page of the training export",
    surfaces: node,
    requests: rows(`limit=${T("limit", "items") + 1}`),
    expect: invalid("limit"),
  },
  {
    id: "training-rows-range",
    proves: "limit: the range of the training export",
    surfaces: node,
    requests: rows(`since=${T("since", "days") + 1}d`),
    expect: invalid("since"),
  },
  {
    id: "training-rows-min-impressions",
    proves: "limit: the minimum impressions of the training export",
    surfaces: node,
    requests: rows(`minImpressions=${T("minImpressions", "items") + 1}`),
    expect: invalid("minImpressions"),
  },
  {
    id: "training-rows-after",
    proves: "limit: the paging cursor of the training export",
    surfaces: node,
    requests: rows(`after=${"a".repeat(T("after", "characters") + 1)}`),
    expect: invalid("after"),
  },
  {
    id: "training-rows-model",
    proves: "limit: the model id of the training export",
    surfaces: node,
    requests: rows(`model=${"m".repeat(T("model", "characters") + 1)}`),
    expect: invalid("model"),
  },
];
