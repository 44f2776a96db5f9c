/**
 * What the stack tests share: the whole app synthesized offline (every stack, every environment of
 * relevance.environments.json), with its templates.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, CfnResource, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { type BuildAppOptions, buildApp } from "./build-app.ts";
import { removeBundles } from "./bundles.ts";

export interface Synthesized {
  app: App;
  stacks: Stack[];
  stack(name: string): Stack;
  template(name: string): Template;
  /** The JSON of a stack's template. */
  json(name: string): {
    Resources: Record<string, CfnResourceJson>;
    Parameters?: Record<string, Record<string, unknown>>;
  };
}

export interface CfnResourceJson {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string[];
}

const outdirs: string[] = [];

/** Removes every cloud assembly and bundle this test file made (call it in afterAll). */
export function removeSynthesized(): void {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  removeBundles();
}

export function synthesize(options: BuildAppOptions = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), "svc-infra-test-"));
  outdirs.push(outdir);
  const app = buildApp({ outdir, ...options });
  app.synth();
  const stacks = app.node.children.filter((c): c is Stack => Stack.isStack(c));
  const byName = (name: string) => {
    const s = stacks.find((x) => x.stackName === name);
    if (s === undefined)
      throw new Error(`no stack ${name} (have ${stacks.map((x) => x.stackName).join(", ")})`);
    return s;
  };
  const templates = new Map<string, Template>();
  const template = (name: string) => {
    let t = templates.get(name);
    if (t === undefined) {
      t = Template.fromStack(byName(name));
      templates.set(name, t);
    }
    return t;
  };
  return {
    app,
    stacks,
    stack: byName,
    template,
    json: (name) => template(name).toJSON() as ReturnType<Synthesized["json"]>,
  };
}

/** Every CloudFormation resource of a stack with its logical id. */
export function cfnResources(stack: Stack): { resource: CfnResource; logicalId: string }[] {
  return stack.node
    .findAll()
    .filter((c): c is CfnResource => CfnResource.isCfnResource(c))
    .map((resource) => ({ resource, logicalId: stack.resolve(resource.logicalId) as string }));
}

/** IAM policy statements of a template: inline policies (AWS::IAM::Policy, role inline policies) and resource policies. */
export function policyStatements(resources: Record<string, CfnResourceJson>): {
  logicalId: string;
  type: string;
  statement: Record<string, unknown>;
}[] {
  const out: { logicalId: string; type: string; statement: Record<string, unknown> }[] = [];
  const add = (logicalId: string, type: string, doc: unknown) => {
    const statements = (doc as { Statement?: unknown } | undefined)?.Statement;
    if (!Array.isArray(statements)) return;
    for (const statement of statements)
      out.push({ logicalId, type, statement: statement as Record<string, unknown> });
  };
  for (const [logicalId, r] of Object.entries(resources)) {
    const p = r.Properties ?? {};
    add(logicalId, r.Type, p.PolicyDocument);
    for (const inline of (p.Policies as { PolicyDocument?: unknown }[] | undefined) ?? []) {
      add(logicalId, r.Type, inline.PolicyDocument);
    }
  }
  return out;
}

export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** The statements of a policy resource (AWS::IAM::Policy, AWS::S3::BucketPolicy, ...); throws when there is none. */
export function statementsOf(resource: CfnResourceJson | undefined): Record<string, unknown>[] {
  const doc = resource?.Properties?.PolicyDocument as { Statement?: Record<string, unknown>[] } | undefined;
  if (doc?.Statement === undefined) throw new Error("no policy document");
  return doc.Statement;
}

/** A function's environment variables; throws when it has none. */
export function variablesOf(fn: CfnResourceJson | undefined): Record<string, unknown> {
  const vars = (fn?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables;
  if (vars === undefined) throw new Error("no environment");
  return vars;
}
