/**
 * The monitor benchmarks' synthetic dataset (`npm run bench -- monitor`, monitor-profile.ts,
 * ingest-profile.ts): 4 collectors × 100 accounts × 17 AWS regions = 6,800 series, one run per
 * 15 minutes, loaded inside the engine by `INSERT … SELECT … FROM numbers()`.
 */
export const COLLECTORS = ["config_ec2", "config_ebs", "config_network", "hierarchy_builder"];
export const REGIONS = [
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
  "ca-central-1",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "eu-central-1",
  "eu-north-1",
  "ap-south-1",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ap-southeast-1",
  "ap-southeast-2",
  "sa-east-1",
];
export const ACCOUNTS = 100;
/** 6,800 collector × account × region. */
export const SERIES = COLLECTORS.length * ACCOUNTS * REGIONS.length;
/** Slots (one run per series per 15 minutes) in `days` days. */
export const slotsIn = (days: number) => days * 96;
export const account = (i: number) => String(100_000_000_000 + i);

/**
 * Row n → series s = n % SERIES (collector, account, region), slot t = n / SERIES (time-major, so an
 * insert block covers a short span of time and mostly one monthly partition). Everything else is a
 * hash of n: about 2 % failed and 2 % partial, durations 5 s to 5 min.
 */
export function loadSql(from: number, count: number, baseSec: number, slots: number): string {
  const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(",")}]`;
  return `INSERT INTO svc.collector_runs
  (run_id, collector, cloud_account_id, cloud_region, started_at, completed_at, status,
   events_produced, rows_inserted, error, duration_ms)
SELECT generateUUIDv4(number) AS run_id, collector, cloud_account_id, cloud_region, started_at,
  addMilliseconds(started_at, duration_ms) AS completed_at, status,
  if(status = 'failed', 0, h2 % 5000) AS events_produced,
  if(status = 'failed', 0, h2 % 2500) AS rows_inserted,
  multiIf(status = 'failed', concat('AccessDenied: not authorized to call Describe* in ', cloud_region),
          status = 'partial', concat('Throttling: rate exceeded after ', toString(h2 % 900), ' pages'), '') AS error,
  duration_ms
FROM (
  SELECT number,
    number % ${SERIES} AS s,
    intDiv(number, ${SERIES}) AS t,
    intHash32(number) AS h1,
    intHash32(number + 1000000000) AS h2,
    arrayElement(${list(COLLECTORS)}, s % ${COLLECTORS.length} + 1) AS collector,
    toString(${100_000_000_000} + intDiv(s, ${COLLECTORS.length}) % ${ACCOUNTS}) AS cloud_account_id,
    arrayElement(${list(REGIONS)}, intDiv(s, ${COLLECTORS.length * ACCOUNTS}) + 1) AS cloud_region,
    toDateTime64(${baseSec} - (${slots - 1} - t) * 900 + s % 30, 3, 'UTC') AS started_at,
    toUInt32((5 + h1 % 295) * 1000 + h2 % 1000) AS duration_ms,
    multiIf(h1 % 1000 < 20, 'failed', h1 % 1000 < 40, 'partial', 'succeeded') AS status
  FROM numbers(${from}, ${count})
)`;
}
