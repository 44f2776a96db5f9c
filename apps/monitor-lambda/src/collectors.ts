/**
 * The collectors this Lambda build runs, and the regions they scan. config_ec2, config_ebs and
 * config_network are the real AWS collectors (@monitor/aws): they assume the collector role in
 * each monitored account (STS, with the external id), page through the EC2 Describe APIs, write
 * svc.resources and send one event per resource to the event queue; a refused role moves the account
 * to `no_access`. hierarchy_builder places the latest resources in the hierarchy (svc.resource_hierarchy)
 * and has the open cost periods re-attributed. Regions: those of the configured ones that are enabled
 * in the account (EC2 DescribeRegions under the account's role), all of them when that cannot be read.
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import { STSClient } from "@aws-sdk/client-sts";
import {
  type AwsRetryOptions,
  awsCollectors,
  awsRetryConfig,
  describeRegionsSource,
  type Ec2ClientFactory,
  markAccountNoAccess,
  RoleAssumer,
  SqsEventPublisher,
} from "@monitor/aws";
import {
  ClickHouseHierarchyStore,
  ClickHouseResourceSink,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import type { Collector, HierarchyRules, RegionSource, RuntimeLogEvent } from "@monitor/core";
import { ClickHouseCostStore } from "@monitor/cost";
import { hierarchyBuilder } from "@monitor/runtime";
import { errorMessage } from "@shared/kernel";
import type { CollectorWiring } from "./config.ts";

export const COLLECTORS_MODULE = "apps/monitor-lambda/src/collectors.ts";

export interface LambdaCollectorDeps {
  store: ClickHouseRunStore;
  wiring: CollectorWiring;
  /** The configured regions (MonitoredRegions): an allow-list, and the fallback. */
  regions: readonly string[];
  hierarchyRules: HierarchyRules;
  /** The function's own identity; `awsClients()` builds them. */
  sts: STSClient;
  sqs: SQSClient;
  log: (e: RuntimeLogEvent) => void;
  /** Tests: regional EC2 clients. Default: ec2ClientFactory() (the SDK's retries, 5 attempts). */
  ec2?: Ec2ClientFactory;
}

export interface LambdaCollectors {
  collectors: readonly Collector[];
  regions: RegionSource;
  /** Resolves when work the collectors started in the background has ended (the cost re-attribution). */
  settled(): Promise<void>;
}

/**
 * The function's own STS and SQS clients (region from AWS_REGION), retrying with the SDK's standard
 * retry strategy (awsRetryConfig: 5 attempts, throttling/5xx/timeouts, exponential backoff).
 */
export function awsClients(retry: AwsRetryOptions = {}): { sts: STSClient; sqs: SQSClient } {
  return {
    sts: new STSClient({ ...awsRetryConfig(retry) }),
    sqs: new SQSClient({ ...awsRetryConfig(retry) }),
  };
}

export function lambdaCollectors(deps: LambdaCollectorDeps): LambdaCollectors {
  const { store, wiring, log } = deps;
  const credentials = new RoleAssumer({
    sts: deps.sts,
    roleName: wiring.roleName,
    externalId: wiring.externalId,
  });
  const aws = awsCollectors({
    credentials,
    sink: ClickHouseResourceSink.fromStore(store),
    events: new SqsEventPublisher({
      client: deps.sqs,
      queueUrl: wiring.eventQueueUrl,
    }),
    onNoAccess: markAccountNoAccess(store),
    log,
    ...(deps.ec2 === undefined ? {} : { ec2: deps.ec2 }),
  });
  const cost = ClickHouseCostStore.fromStore(store, {
    rules: deps.hierarchyRules,
    onError: (err) =>
      log({
        level: "error",
        msg: `cost re-attribution failed: ${errorMessage(err)}`,
      }),
  });
  const hierarchy = hierarchyBuilder({
    store: ClickHouseHierarchyStore.fromStore(store),
    rules: deps.hierarchyRules,
    onBuilt: () => cost.requestReattribution(),
  });
  return {
    collectors: [...aws, hierarchy],
    regions: describeRegionsSource({
      credentials,
      fallback: deps.regions,
      only: deps.regions,
      log,
      ...(deps.ec2 === undefined ? {} : { ec2: deps.ec2 }),
    }),
    settled: () => cost.idle(),
  };
}
