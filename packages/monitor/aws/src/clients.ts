/**
 * Regional EC2 clients on a monitored account's temporary credentials, retrying as every client of
 * this package does: the SDK's standard retry strategy (aws-retry.ts).
 */
import { EC2Client } from "@aws-sdk/client-ec2";
import type { TemporaryCredentials } from "./assume-role.ts";
import { type AwsRetryOptions, awsRetryConfig } from "./aws-retry.ts";

export { ec2Arn, partitionOf } from "./arn.ts";

export type Ec2ClientFactory = (region: string, credentials: TemporaryCredentials) => EC2Client;

export interface Ec2ClientOptions {
  /** Socket idle time before a request fails with a timeout (retried). Default 15 000 ms. */
  requestTimeoutMs?: number;
  /** Default 3000 ms. */
  connectionTimeoutMs?: number;
  /** Attempts and pacing of the SDK's retries (default 5 attempts, its backoff). */
  retry?: AwsRetryOptions;
  /**
   * The EC2 API's URL instead of the region's public one: an interface VPC endpoint
   * (`https://vpce-….ec2.<region>.vpce.amazonaws.com`) or, in tests, a local double; every client
   * the factory builds uses it, whatever its region. Default: the SDK's endpoint for the region.
   */
  endpoint?: string;
}

export function ec2ClientFactory(opts: Ec2ClientOptions = {}): Ec2ClientFactory {
  return (region, credentials) =>
    new EC2Client({
      region,
      credentials,
      ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
      ...awsRetryConfig(opts.retry),
      requestHandler: {
        requestTimeout: opts.requestTimeoutMs ?? 15_000,
        connectionTimeout: opts.connectionTimeoutMs ?? 3000,
      },
    });
}
