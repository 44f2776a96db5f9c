/**
 * The monitoring service's own infrastructure carries `svc:purpose=svc-infrastructure`, so
 * the resource hierarchy puts it under one node whose cost is what the service costs to run.
 */
import { Tags } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

export const SVC_PURPOSE_KEY = "svc:purpose";
export const SVC_PURPOSE_VALUE = "svc-infrastructure";

/**
 * Tags every taggable resource under `scope` (CDK's tag aspect). What the aspect cannot reach is
 * handled where it arises: log groups are created explicitly (ServiceFunction), schedules are
 * EventBridge rules (taggable) rather than Scheduler schedules (not taggable), and runtime-created
 * resources are listed in docs/deploy.md ("Tagging"). tags.test.ts proves the result.
 */
export function tagMonitoringService(scope: IConstruct): void {
  Tags.of(scope).add(SVC_PURPOSE_KEY, SVC_PURPOSE_VALUE);
}
