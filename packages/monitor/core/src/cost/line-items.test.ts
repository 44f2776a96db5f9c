import { describe, expect, it } from "vitest";
import { DEFAULT_HIERARCHY_RULES } from "../hierarchy/rules.ts";
import { attributeLine, type CostLine, costPerNodePerDay, outsideReason, resourceKey } from "./line-items.ts";

const ACC = "111111111111";
function line(p: Partial<CostLine> = {}): CostLine {
  return {
    usage_account_id: ACC,
    day: "2025-05-01",
    line_item_type: "Usage",
    product_code: "AmazonEC2",
    resource_id: "i-1",
    cost: 1,
    currency: "USD",
    tags: {},
    ...p,
  };
}

const HIERARCHY = new Map([
  [resourceKey(ACC, "i-known"), "teams/payments"],
  [resourceKey(ACC, "arn:aws:sqs:us-east-1:111111111111:svcmon-events"), "svc-infrastructure"],
]);

describe("outsideReason", () => {
  it.each<[string, Partial<CostLine>, string | null]>([
    ["Tax has no resource to tag", { line_item_type: "Tax", resource_id: "" }, "Tax"],
    ["a Fee is outside even with a resource id", { line_item_type: "Fee", resource_id: "x" }, "Fee"],
    ["RIFee", { line_item_type: "RIFee" }, "RIFee"],
    ["Savings Plan recurring fee", { line_item_type: "SavingsPlanRecurringFee" }, "SavingsPlanRecurringFee"],
    ["AWS Support usage", { product_code: "AWSSupportBusiness", resource_id: "" }, "Support"],
    ["Tax on Support is Tax", { product_code: "AWSSupportEnterprise", line_item_type: "Tax" }, "Tax"],
    ["usage with neither resource id nor tags", { resource_id: "", tags: {} }, "NoResource"],
    ["usage without resource id but with tags", { resource_id: "", tags: { user_team: "web" } }, null],
    ["usage of a resource", {}, null],
    ["a credit on a resource", { line_item_type: "Credit", cost: -1 }, null],
  ])("%s → %s", (_name, p, reason) => {
    expect(outsideReason(line(p))).toBe(reason);
  });
});

describe("attributeLine", () => {
  it.each<[string, Partial<CostLine>, string, string]>([
    ["the hierarchy node of a known resource", { resource_id: "i-known" }, "teams/payments", ""],
    [
      "the hierarchy wins over the line's own tags",
      { resource_id: "i-known", tags: { user_team: "other" } },
      "teams/payments",
      "",
    ],
    [
      "a known ARN (svc-infrastructure through the hierarchy)",
      { resource_id: "arn:aws:sqs:us-east-1:111111111111:svcmon-events" },
      "svc-infrastructure",
      "",
    ],
    [
      "a resource the collectors never saw, tagged svc-infrastructure in the report",
      {
        resource_id: "arn:aws:lambda:us-east-1:111111111111:function:svcmon-x",
        tags: { user_svc_purpose: "svc-infrastructure" },
      },
      "svc-infrastructure",
      "",
    ],
    [
      "the same resource id in another account is not the known one",
      { usage_account_id: "222", resource_id: "i-known" },
      "unassigned/222",
      "",
    ],
    ["an unknown untagged resource", { resource_id: "i-new" }, `unassigned/${ACC}`, ""],
    ["a tagged line without resource id", { resource_id: "", tags: { user_team: "web" } }, "teams/web", ""],
    ["tax", { line_item_type: "Tax", resource_id: "" }, "", "Tax"],
  ])("%s", (_name, p, node, reason) => {
    expect(attributeLine(line(p), HIERARCHY, DEFAULT_HIERARCHY_RULES)).toEqual({
      node,
      outside_reason: reason,
    });
  });
});

describe("costPerNodePerDay", () => {
  it("sums per day, node or reason, and currency; nothing is dropped", () => {
    const lines = [
      line({ resource_id: "i-known", cost: 1.5 }),
      line({ resource_id: "i-known", cost: 2.5 }),
      line({ resource_id: "i-known", cost: 4, day: "2025-05-02" }),
      line({ resource_id: "i-known", cost: 3, currency: "EUR" }),
      line({ line_item_type: "Tax", resource_id: "", cost: 0.7 }),
      line({ product_code: "AWSSupportBusiness", resource_id: "", cost: 10 }),
      line({ resource_id: "i-x", tags: { user_svc_purpose: "svc-infrastructure" }, cost: 0.25 }),
    ];
    const rows = costPerNodePerDay(lines, HIERARCHY, DEFAULT_HIERARCHY_RULES);
    expect(rows).toEqual([
      { day: "2025-05-01", node: "", outside_reason: "Support", currency: "USD", cost: 10, lines: 1 },
      { day: "2025-05-01", node: "", outside_reason: "Tax", currency: "USD", cost: 0.7, lines: 1 },
      {
        day: "2025-05-01",
        node: "svc-infrastructure",
        outside_reason: "",
        currency: "USD",
        cost: 0.25,
        lines: 1,
      },
      { day: "2025-05-01", node: "teams/payments", outside_reason: "", currency: "EUR", cost: 3, lines: 1 },
      { day: "2025-05-01", node: "teams/payments", outside_reason: "", currency: "USD", cost: 4, lines: 2 },
      { day: "2025-05-02", node: "teams/payments", outside_reason: "", currency: "USD", cost: 4, lines: 1 },
    ]);
    const total = rows.reduce((s, r) => s + r.cost, 0);
    expect(total).toBeCloseTo(
      lines.reduce((s, l) => s + l.cost, 0),
      10,
    );
  });
});
