/**
 * Every stack of the repository in one CDK app (docs/deploy.md):
 *   {env}-EcomSearch     per search environment (dev, staging, preprod, prod), in that environment's
 *                        account and the region of relevance.environments.json
 *   svcmon-Monitor       the monitoring service, in the monitoring account
 *   svcmon-CollectorRole the role the collectors assume, in each monitored account
 * Accounts: the credentials' account (CDK_DEFAULT_ACCOUNT) unless pinned with `-c <stack>:account=<id>`
 * (a pinned stack refuses to deploy with another account's credentials). Synthesis needs no
 * credentials and no network.
 */
import { App, type AppProps, type Environment, LegacyStackSynthesizer } from "aws-cdk-lib";
import { CollectorRoleStack } from "./collector-role-stack.ts";
import { readSearchEnvironments, type SearchEnvironment } from "./environments.ts";
import { hierarchyRulesFromContext } from "./hierarchy-rules-context.ts";
import { MonitorStack } from "./monitor-stack.ts";
import { SearchStack } from "./search-stack.ts";

export const MONITOR_STACK = "svcmon-Monitor";
export const COLLECTOR_ROLE_STACK = "svcmon-CollectorRole";
export const searchStackName = (env: string) => `${env}-EcomSearch`;

export interface BuildAppOptions extends AppProps {
  /** Default: relevance.environments.json at the repository root. */
  searchEnvironments?: readonly SearchEnvironment[];
}

const ACCOUNT = /^\d{12}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

function pinnedAccount(app: App, stack: string): string | undefined {
  const key = `${stack}:account`;
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === "") return process.env.CDK_DEFAULT_ACCOUNT;
  if (typeof value !== "string" || !ACCOUNT.test(value)) {
    throw new Error(`context ${key} must be a 12-digit AWS account id, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** `-c svcmon-Monitor:curReaderArn=arn:aws:iam::<account>:role/<name>` (comma-separated for several). */
function curReaders(app: App): string[] {
  const key = `${MONITOR_STACK}:curReaderArn`;
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === "") return [];
  const arns =
    typeof value === "string"
      ? value
          .split(",")
          .map((a) => a.trim())
          .filter((a) => a !== "")
      : [];
  if (arns.length === 0 || arns.some((a) => !ROLE_ARN.test(a))) {
    throw new Error(`context ${key} must be IAM role ARNs separated by commas, got ${JSON.stringify(value)}`);
  }
  return arns;
}

function environment(app: App, stack: string, region: string | undefined): Environment {
  const account = pinnedAccount(app, stack);
  return { ...(account === undefined ? {} : { account }), ...(region === undefined ? {} : { region }) };
}

export function buildApp(options: BuildAppOptions = {}): App {
  const { searchEnvironments, ...appProps } = options;
  // No AWS::CDK::Metadata resource: nothing untaggable that the project did not ask for.
  const app = new App({ analyticsReporting: false, ...appProps });
  for (const env of searchEnvironments ?? readSearchEnvironments()) {
    const name = searchStackName(env.name);
    new SearchStack(app, name, {
      stackName: name,
      description: `Search relevance (${env.name}): settings table, exporter, admin API, secrets`,
      environment: env,
      env: environment(app, name, env.awsRegion),
      terminationProtection: env.name === "prod",
    });
  }
  const region = process.env.CDK_DEFAULT_REGION;
  new MonitorStack(app, MONITOR_STACK, {
    stackName: MONITOR_STACK,
    description: "Monitoring service: collectors, event queue, ingest, CUR bucket, secrets, status service",
    env: environment(app, MONITOR_STACK, region),
    terminationProtection: true,
    curReaderArns: curReaders(app),
    // `-c svcmon-Monitor:hierarchyRules=<rules.json>`; without it the functions use the built-in rules.
    hierarchyRules: hierarchyRulesFromContext(app, `${MONITOR_STACK}:hierarchyRules`),
  });
  new CollectorRoleStack(app, COLLECTOR_ROLE_STACK, {
    stackName: COLLECTOR_ROLE_STACK,
    description: "Monitoring service: the read-only role its collectors assume in this (monitored) account",
    env: environment(app, COLLECTOR_ROLE_STACK, region),
    // No assets, no bootstrap roles, no bootstrap bucket (the small template is sent inline): it
    // deploys with the caller's credentials into accounts that were never bootstrapped, or as a StackSet.
    synthesizer: new LegacyStackSynthesizer(),
  });
  return app;
}
