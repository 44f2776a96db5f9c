/**
 * The collectors this Lambda build runs, and the regions they scan. config_ec2, config_ebs and
 * config_network are the real AWS collectors (@svcmon/monitor-aws): they assume the collector role in
 * each monitored account (STS, with the external id), page through the EC2 Describe APIs, write
 * svc.resources and send one event per resource to the event queue; a refused role moves the account
 * to `no_access`. hierarchy_builder places the latest resources in the hierarchy (svc.resource_hierarchy)
 * and has the open cost periods re-attributed. Regions: those of the configured ones that are enabled
 * in the account (EC2 DescribeRegions under the account's role), all of them when that cannot be read.
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import { STSClient } from "@aws-sdk/client-sts";
import type { Collector, HierarchyRules, RegionSource, RuntimeLogEvent } from "@svcmon/core";
import {
  awsCollectors,
  describeRegionsSource,
  type Ec2ClientFactory,
  markAccountNoAccess,
  type RetryOptions,
  RoleAssumer,
  SqsEventPublisher,
} from "@svcmon/monitor-aws";
import {
  ClickHouseHierarchyStore,
  ClickHouseResourceSink,
  type ClickHouseRunStore,
} from "@svcmon/monitor-clickhouse";
import { ClickHouseCostStore } from "@svcmon/monitor-cost";
import { hierarchyBuilder } from "@svcmon/monitor-runtime";
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
  /** Tests: regional EC2 clients and retry pacing. Default: ec2ClientFactory() and retry.ts defaults. */
  ec2?: Ec2ClientFactory;
  retry?: RetryOptions;
}

export interface LambdaCollectors {
  collectors: readonly Collector[];
  regions: RegionSource;
  /** Resolves when work the collectors started in the background has ended (the cost re-attribution). */
  settled(): Promise<void>;
}

/**
 * The function's own STS and SQS clients (region from AWS_REGION). maxAttempts 1: retry.ts is the only
 * retry layer, so an error's attempt count is the real one.
 */
export function awsClients(): { sts: STSClient; sqs: SQSClient } {
  return { sts: new STSClient({ maxAttempts: 1 }), sqs: new SQSClient({ maxAttempts: 1 }) };
}

export function lambdaCollectors(deps: LambdaCollectorDeps): LambdaCollectors {
  const { store, wiring, log } = deps;
  const credentials = new RoleAssumer({
    sts: deps.sts,
    roleName: wiring.roleName,
    externalId: wiring.externalId,
    ...(deps.retry === undefined ? {} : { retry: deps.retry }),
  });
  const aws = awsCollectors({
    credentials,
    sink: ClickHouseResourceSink.fromStore(store),
    events: new SqsEventPublisher({
      client: deps.sqs,
      queueUrl: wiring.eventQueueUrl,
      ...(deps.retry === undefined ? {} : { retry: deps.retry }),
    }),
    onNoAccess: markAccountNoAccess(store),
    log,
    ...(deps.ec2 === undefined ? {} : { ec2: deps.ec2 }),
    ...(deps.retry === undefined ? {} : { retry: deps.retry }),
  });
  const cost = ClickHouseCostStore.fromStore(store, {
    rules: deps.hierarchyRules,
    onError: (err) =>
      log({
        level: "error",
        msg: `cost re-attribution failed: ${err instanceof Error ? err.message : String(err)}`,
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
      ...(deps.retry === undefined ? {} : { retry: deps.retry }),
    }),
    settled: () => cost.idle(),
  };
}
