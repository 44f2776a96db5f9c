/**
 * A Lambda function the way every stack here wants it: one of the prebundled handlers, its own
 * execution role with no managed policy (only what the function needs: writing to its own log
 * group, reading its own secrets, plus what the stack grants), and an explicit log group. The log
 * group exists before the function, so Lambda never creates one at run time (that one would carry no
 * tags and keep logs forever), and the role cannot create log groups at all.
 */
import { Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import type * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { BUNDLE_HANDLER, type BundleName, bundleCode } from "./bundles.ts";
import { SECRET_ENV_MAP } from "./lambda/secret-env.ts";

export interface SecretEnvVar {
  secret: secretsmanager.ISecret;
  /** For a JSON secret: the key holding the value. */
  jsonKey?: string;
}

export interface ServiceFunctionProps {
  functionName: string;
  description: string;
  bundle: BundleName;
  memorySize: number;
  timeout: Duration;
  environment?: Record<string, string>;
  /** Variables filled from Secrets Manager before the handler's first use (src/lambda/secret-env.ts). */
  secretEnvironment?: Record<string, SecretEnvVar>;
  /** A fixed role name, for trust policies elsewhere that name it; generated when absent. */
  roleName?: string;
  logRetention?: logs.RetentionDays;
  /** Async invocations (schedules): retries of a failed invocation. */
  retryAttempts?: number;
  /** Async invocations: how long an event may wait (e.g. while the previous tick still runs). */
  maxEventAge?: Duration;
  reservedConcurrentExecutions?: number;
}

export class ServiceFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, "Logs", {
      logGroupName: `/aws/lambda/${props.functionName}`,
      retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `Execution role of ${props.functionName}`,
      ...(props.roleName === undefined ? {} : { roleName: props.roleName }),
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const secretEnv = props.secretEnvironment ?? {};
    const map: Record<string, { secretId: string; jsonKey?: string }> = {};
    for (const [name, ref] of Object.entries(secretEnv)) {
      map[name] =
        ref.jsonKey === undefined
          ? { secretId: ref.secret.secretArn }
          : { secretId: ref.secret.secretArn, jsonKey: ref.jsonKey };
    }
    const hasSecrets = Object.keys(map).length > 0;

    this.function = new lambda.Function(this, "Function", {
      functionName: props.functionName,
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      code: bundleCode(props.bundle),
      handler: BUNDLE_HANDLER,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        // Secret ARNs are tokens: toJsonString renders them inside the JSON at deploy time.
        ...(hasSecrets ? { [SECRET_ENV_MAP]: Stack.of(this).toJsonString(map) } : {}),
      },
      ...(hasSecrets
        ? {
            paramsAndSecrets: lambda.ParamsAndSecretsLayerVersion.fromVersion(
              lambda.ParamsAndSecretsVersions.V1_0_103,
              {
                cacheSize: 10,
                secretsManagerTtl: Duration.minutes(5),
                logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
              },
            ),
          }
        : {}),
      ...(props.retryAttempts === undefined ? {} : { retryAttempts: props.retryAttempts }),
      ...(props.maxEventAge === undefined ? {} : { maxEventAge: props.maxEventAge }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    });
    // Lambda writes only into the group above; the function must not start before it exists.
    this.function.node.addDependency(this.logGroup);
    for (const ref of Object.values(secretEnv)) ref.secret.grantRead(this.role);
  }
}
