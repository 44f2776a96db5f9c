import { describe, expect, it } from "vitest";
import { costWindows, type DayCost, roundMoney, summarizeCost, summarizeOutside } from "./own-cost.ts";
import { mergeUntagged, ownCostReport, type UntaggedServiceResource } from "./report.ts";

const at = (iso: string) => Date.parse(iso);
const usd = (day: string, cost: number): DayCost => ({ day, currency: "USD", cost });

describe("costWindows", () => {
  it.each<[string, string, string, string, string, string]>([
    // now, today, daily_from, daily_to, month_from, read_from
    ["2025-06-15T12:00:00Z", "2025-06-15", "2025-05-16", "2025-06-14", "2025-06-01", "2025-05-16"],
    ["2025-06-01T00:00:00Z", "2025-06-01", "2025-05-02", "2025-05-31", "2025-06-01", "2025-05-02"],
    ["2025-03-31T23:59:59.999Z", "2025-03-31", "2025-03-01", "2025-03-30", "2025-03-01", "2025-03-01"],
    ["2024-03-01T08:00:00Z", "2024-03-01", "2024-01-31", "2024-02-29", "2024-03-01", "2024-01-31"],
  ])("now %s", (now, today, dailyFrom, dailyTo, monthFrom, readFrom) => {
    expect(costWindows(at(now))).toEqual({
      today,
      daily_from: dailyFrom,
      daily_to: dailyTo,
      month_from: monthFrom,
      read_from: readFrom,
    });
  });
});

describe("summarizeCost", () => {
  const NOW = at("2025-06-15T12:00:00Z");

  it("30 dense days before today, oldest first; today only in month to date", () => {
    const s = summarizeCost(
      [
        usd("2025-05-16", 1),
        usd("2025-06-01", 2),
        usd("2025-06-14", 3),
        usd("2025-06-15", 100),
        usd("2025-05-15", 50),
      ],
      NOW,
    );
    expect(s.currency).toBe("USD");
    expect(s.daily).toHaveLength(30);
    expect(s.daily[0]).toEqual({ day: "2025-05-16", cost: 1 });
    expect(s.daily[29]).toEqual({ day: "2025-06-14", cost: 3 });
    expect(s.daily.filter((d) => d.cost !== 0)).toHaveLength(3);
    expect(s.last_30_days_total).toBe(6);
    expect(s.month_to_date).toBe(105);
    expect(s.other_currencies).toEqual([]);
  });

  it("sums several rows of one day and rounds to 6 decimals", () => {
    const s = summarizeCost(
      [usd("2025-06-10", 0.1), usd("2025-06-10", 0.2), usd("2025-06-10", 0.0000004)],
      NOW,
    );
    expect(s.daily.find((d) => d.day === "2025-06-10")?.cost).toBe(0.3);
    expect(s.month_to_date).toBe(0.3);
  });

  it("never adds currencies: the largest is the summary, others are listed", () => {
    const s = summarizeCost(
      [usd("2025-06-10", 10), { day: "2025-06-10", currency: "EUR", cost: 3 }, usd("2025-06-11", 1)],
      NOW,
    );
    expect(s.currency).toBe("USD");
    expect(s.month_to_date).toBe(11);
    expect(s.other_currencies).toEqual([{ currency: "EUR", month_to_date: 3, last_30_days_total: 3 }]);
  });

  it("no cost at all: null currency, zeros", () => {
    const s = summarizeCost([usd("2024-01-01", 5)], NOW);
    expect(s).toMatchObject({
      currency: null,
      month_to_date: 0,
      last_30_days_total: 0,
      other_currencies: [],
    });
    expect(s.daily.every((d) => d.cost === 0)).toBe(true);
  });

  it("roundMoney keeps sub-cent amounts and never returns -0", () => {
    expect(roundMoney(0.0000014)).toBe(0.000001);
    expect(Object.is(roundMoney(-0.0000001), 0)).toBe(true);
  });
});

describe("summarizeOutside and ownCostReport", () => {
  const NOW = at("2025-06-15T12:00:00Z");

  it("per reason in the own cost's currency, largest first", () => {
    const s = summarizeOutside(
      [
        { day: "2025-06-10", currency: "USD", cost: 2, reason: "Tax" },
        { day: "2025-06-10", currency: "USD", cost: 29, reason: "Support" },
        { day: "2025-05-20", currency: "USD", cost: 1, reason: "Tax" },
        { day: "2025-06-10", currency: "EUR", cost: 99, reason: "Tax" },
      ],
      NOW,
      "USD",
    );
    expect(s).toEqual({
      currency: "USD",
      month_to_date: 31,
      last_30_days_total: 32,
      by_reason: [
        { reason: "Support", month_to_date: 29, last_30_days_total: 29 },
        { reason: "Tax", month_to_date: 2, last_30_days_total: 3 },
      ],
    });
  });

  it("assembles the status block", () => {
    const untagged: UntaggedServiceResource[] = [
      {
        cloud_account_id: "2",
        cloud_region: "",
        resource_id: "svcmon-dlq",
        resource_type: "",
        reason: "id",
        source: "cost_report",
      },
      {
        cloud_account_id: "2",
        cloud_region: "us-east-1",
        resource_id: "svcmon-dlq",
        resource_type: "sqs_queue",
        reason: "id",
        source: "inventory",
      },
      {
        cloud_account_id: "1",
        cloud_region: "us-east-1",
        resource_id: "i-9",
        resource_type: "ec2_instance",
        reason: "stack",
        source: "inventory",
      },
    ];
    const r = ownCostReport(
      {
        svcDaily: [usd("2025-06-14", 4.2)],
        outsideDaily: [{ day: "2025-06-14", currency: "USD", cost: 1, reason: "Tax" }],
        untagged,
        lastIngestAt: at("2025-06-15T06:00:00Z"),
        dataThrough: "2025-06-14",
      },
      NOW,
    );
    expect(r).toMatchObject({
      node: "svc-infrastructure",
      currency: "USD",
      month_to_date: 4.2,
      last_30_days_total: 4.2,
      as_of: "2025-06-15T06:00:00.000Z",
      data_through: "2025-06-14",
      outside_any_node: { currency: "USD", month_to_date: 1 },
    });
    expect(r.untagged_service_resources.map((u) => [u.cloud_account_id, u.resource_id, u.source])).toEqual([
      ["1", "i-9", "inventory"],
      ["2", "svcmon-dlq", "inventory"],
    ]);
  });

  it("mergeUntagged keeps a cost-report entry the inventory does not know", () => {
    const only: UntaggedServiceResource = {
      cloud_account_id: "1",
      cloud_region: "",
      resource_id: "svcmon-bucket",
      resource_type: "",
      reason: "id",
      source: "cost_report",
    };
    expect(mergeUntagged([only])).toEqual([only]);
  });
});
