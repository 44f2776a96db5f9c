/**
 * Simulated cost reports for `npm start` (no AWS): legacy CUR CSV.gz files, one per billing period of
 * the last `days` days through today, written by ClickHouse itself into `dir`, with a daily line per
 * simulated resource (priced from its type and size, less on weekends), the
 * monitoring service's own serverless resources that the collectors never scan (Lambda functions,
 * queues, the report bucket, a secret; one queue deliberately without the svc:purpose tag), and the
 * charges no resource carries (tax per account and day, a support fee per month). Deterministic
 * for a given seed and day; today's lines cover the hours so far, like a report delivered mid-day.
 * The prices are illustrative on-demand rates, not a price list.
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ClickHouseClient } from "@clickhouse/client";
import type { SimulatedCloud } from "@monitor/aws/simulation";
import { SERVICE_HOME, SERVICE_PURPOSE_TAG, SERVICE_PURPOSE_VALUE } from "@monitor/aws/simulation";
import { addDays, DAY_MS, monthStart, utcDay } from "@monitor/core";
import { type CurSource, fileSource } from "../cur-source.ts";
import { type CurLine, writeCurFile } from "../cur-writer.ts";

/** USD per hour of a running instance. */
const INSTANCE_HOURLY: Readonly<Record<string, number>> = {
  "t3.micro": 0.0104,
  "t3.large": 0.0832,
  "m6i.xlarge": 0.192,
  "c6g.2xlarge": 0.272,
  "r6i.large": 0.126,
};
const EBS_GB_MONTH = 0.08;
const NAT_HOURLY = 0.045;
const TAX_RATE = 0.08;
const SUPPORT_FEE_MONTH = 100;

export interface SimulatedCurOptions {
  client: ClickHouseClient;
  cloud: SimulatedCloud;
  accounts: readonly { account_id: string }[];
  regions: readonly string[];
  /** Where the reports go (`<dir>/<payer>/<YYYYMM>/svcmon-cur-00001.csv.gz`). */
  dir: string;
  now: number;
  /** Days before today that the reports cover. Default 35. */
  days?: number;
  /** The organisation's management account, which receives the report. Default the first account. */
  payer?: string;
}

/** The service's own resources outside the scanned inventory (arn → [product, USD per day, tagged]). */
function serviceExtras(account: string, region: string): [string, string, number, boolean][] {
  const arn = (service: string, rest: string) => `arn:aws:${service}:${region}:${account}:${rest}`;
  return [
    [arn("lambda", "function:svcmon-collector-config"), "AWSLambda", 0.42, true],
    [arn("lambda", "function:svcmon-hierarchy-builder"), "AWSLambda", 0.18, true],
    [arn("lambda", "function:svcmon-status-api"), "AWSLambda", 0.09, true],
    [arn("sqs", "svcmon-events"), "AWSQueueService", 0.12, true],
    // Created by hand during an incident and never tagged: the "lacks the tag" warning.
    [arn("sqs", "svcmon-events-dlq"), "AWSQueueService", 0.01, false],
    [`svcmon-cur-${account}`, "AmazonS3", 0.35, true],
    [arn("secretsmanager", "secret:svcmon/clickhouse-Ab12Cd"), "AWSSecretsManager", 0.013, true],
  ];
}

/**
 * Day-to-day variation in [0.88, 1.06]: 10 % less on weekends, and a small step per resource and day
 * (its position in the day's lines), so the sparkline moves like real usage. Deterministic.
 */
function variation(day: string, position: number): number {
  const dayNumber = Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
  const weekday = (dayNumber + 4) % 7; // 1970-01-01 was a Thursday; 0 = Sunday
  return (weekday === 0 || weekday === 6 ? 0.9 : 1) + 0.02 * ((position + dayNumber) % 5) - 0.02;
}

const round = (v: number) => Math.round(v * 1e10) / 1e10;

/** The report lines of one day (`fraction` < 1 for today: the hours elapsed). */
export function simulatedCurDay(opts: SimulatedCurOptions, day: string, fraction: number): CurLine[] {
  const payer = opts.payer ?? (opts.accounts[0]?.account_id as string);
  const lines: CurLine[] = [];
  for (const { account_id: account } of opts.accounts) {
    let usage = 0;
    const base = {
      billing_period: monthStart(day),
      payer_account_id: payer,
      usage_account_id: account,
      usage_start: `${day}T00:00:00Z`,
      currency: "USD",
    };
    const add = (product: string, resource: string, perDay: number, tags: Record<string, string>) => {
      const cost = round(perDay * fraction * variation(day, lines.length));
      usage += cost;
      lines.push({
        ...base,
        line_item_type: "Usage",
        product_code: product,
        resource_id: resource,
        unblended_cost: cost,
        tags,
      });
    };
    for (const region of opts.regions) {
      const inv = opts.cloud.inventory(account, region);
      for (const i of inv.instances) {
        if (i.state === "running")
          add(
            "AmazonEC2",
            i.instance_id,
            24 * (INSTANCE_HOURLY[i.instance_type] ?? 0.1),
            inv.tags[i.instance_id] ?? {},
          );
      }
      for (const v of inv.volumes)
        add("AmazonEC2", v.volume_id, (v.size_gb * EBS_GB_MONTH) / 30, inv.tags[v.volume_id] ?? {});
      for (const n of inv.network) {
        if (n.kind === "nat_gateway")
          add("AmazonVPC", n.resource_id, 24 * NAT_HOURLY, inv.tags[n.resource_id] ?? {});
      }
      if (account === SERVICE_HOME.account_id && region === SERVICE_HOME.region) {
        for (const [resource, product, perDay, tagged] of serviceExtras(account, region)) {
          add(
            product,
            resource,
            perDay,
            tagged
              ? { [SERVICE_PURPOSE_TAG]: SERVICE_PURPOSE_VALUE, team: "platform" }
              : { team: "platform" },
          );
        }
      }
    }
    lines.push({
      ...base,
      line_item_type: "Tax",
      product_code: "AmazonEC2",
      resource_id: "",
      unblended_cost: round(usage * TAX_RATE),
    });
    if (day.endsWith("-01")) {
      lines.push({
        ...base,
        line_item_type: "Fee",
        product_code: "AWSSupportBusiness",
        resource_id: "",
        unblended_cost: SUPPORT_FEE_MONTH,
      });
    }
  }
  return lines;
}

/** Writes the reports; returns one delivery (its files) per billing period, oldest first. */
export async function writeSimulatedCurReports(opts: SimulatedCurOptions): Promise<CurSource[][]> {
  const today = utcDay(opts.now);
  const fractionToday = Math.max(1 / 24, Math.floor(((opts.now % DAY_MS) / DAY_MS) * 24) / 24);
  const byPeriod = new Map<string, CurLine[]>();
  for (let i = opts.days ?? 35; i >= 0; i--) {
    const day = addDays(today, -i);
    const lines = simulatedCurDay(opts, day, day === today ? fractionToday : 1);
    byPeriod.set(monthStart(day), [...(byPeriod.get(monthStart(day)) ?? []), ...lines]);
  }
  const payer = opts.payer ?? (opts.accounts[0]?.account_id as string);
  const deliveries: CurSource[][] = [];
  for (const [period, lines] of byPeriod) {
    const path = join(opts.dir, payer, period.slice(0, 7).replace("-", ""), "svcmon-cur-00001.csv.gz");
    await mkdir(dirname(path), { recursive: true });
    await writeCurFile(opts.client, path, "legacy-csv", lines);
    deliveries.push([fileSource(path)]);
  }
  return deliveries;
}
