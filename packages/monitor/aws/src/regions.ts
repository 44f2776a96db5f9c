/**
 * The scheduler's region source for AWS ("a loop over its regions"): the regions enabled in
 * each account (EC2 DescribeRegions under the account's role), cached per account, optionally
 * limited to an allow-list. When they cannot be read, the fallback list is used, so the runs still
 * happen and their records say why (a refused role, for example, then fails every run).
 */

import { DescribeRegionsCommand } from "@aws-sdk/client-ec2";
import { type CollectorAccount, errorText, type RegionSource, type RuntimeLogEvent } from "@monitor/core";
import { type Ec2ClientFactory, ec2ClientFactory } from "./clients.ts";
import type { CredentialSource } from "./collect.ts";

export interface DescribeRegionsSourceOptions {
  credentials: CredentialSource;
  /** Used when the account's regions cannot be read. Must not be empty. */
  fallback: readonly string[];
  /** Keep only these of the enabled regions. Default: every enabled region. */
  only?: readonly string[];
  /** Region of the DescribeRegions call. Default "us-east-1". */
  homeRegion?: string;
  /** How long an account's list is reused. Default 1 hour. */
  ttlMs?: number;
  now?: () => number;
  /** Default: ec2ClientFactory() (the SDK's retries, aws-retry.ts). */
  ec2?: Ec2ClientFactory;
  log?: (e: RuntimeLogEvent) => void;
}

export function describeRegionsSource(opts: DescribeRegionsSourceOptions): RegionSource {
  if (opts.fallback.length === 0)
    throw new Error("describeRegionsSource: fallback must name at least one region");
  const makeClient = opts.ec2 ?? ec2ClientFactory();
  const now = opts.now ?? Date.now;
  const ttl = opts.ttlMs ?? 3_600_000;
  const only = opts.only ? new Set(opts.only) : null;
  const cache = new Map<string, { regions: readonly string[]; at: number }>();
  return async (account: CollectorAccount) => {
    const hit = cache.get(account.account_id);
    if (hit && now() - hit.at < ttl) return hit.regions;
    try {
      const creds = await opts.credentials.credentials(account.account_id);
      const client = makeClient(opts.homeRegion ?? "us-east-1", creds);
      try {
        const out = await client.send(new DescribeRegionsCommand({}));
        const regions = (out.Regions ?? [])
          .flatMap((r) => r.RegionName ?? [])
          .filter((r) => only === null || only.has(r))
          .sort();
        cache.set(account.account_id, { regions, at: now() });
        return regions;
      } finally {
        client.destroy();
      }
    } catch (err) {
      opts.log?.({
        level: "warn",
        msg: `regions of the account unreadable, using ${opts.fallback.join(", ")}: ${errorText(err)}`,
        account: account.account_id,
      });
      return opts.fallback;
    }
  };
}
