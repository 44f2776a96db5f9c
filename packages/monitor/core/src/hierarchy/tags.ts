/**
 * Tag keys in the two forms the hierarchy sees. Resources (svc.resources) carry AWS tag keys as
 * written on the resource (`svc:purpose`, `team`, `aws:cloudformation:stack-name`). Cost reports carry
 * them in CUR form: CUR 2.0's `resource_tags` map and the Athena-style legacy columns name a tag
 * `user_svc_purpose` (user tags) or `aws_cloudformation_stack_name` (AWS-generated tags): the key
 * lower-cased, every character other than a-z and 0-9 turned into `_`. That form is lossy
 * (`svc:purpose` and `svc-purpose` collide), so it is the one both sides can be compared in.
 */

/** The tag of the service's own infrastructure and its value. */
export const SVC_PURPOSE_TAG = "svc:purpose";
export const SVC_INFRASTRUCTURE = "svc-infrastructure";
/** The CloudFormation stack tag AWS puts on every resource of a stack. */
export const STACK_NAME_TAG = "aws:cloudformation:stack-name";
export const NAME_TAG = "Name";

export type Tags = Readonly<Record<string, string>>;

/** Which form a tag map's keys are in. */
export type TagKeyForm = "aws" | "cur";

/**
 * The CUR key of a name that already carries its prefix: ASCII letters lower-cased, then every code
 * point other than a-z and 0-9 becomes `_` (ASCII-only lower-casing and per-code-point replacement
 * are exactly what ClickHouse's `replaceRegexpAll(lower(k), '[^a-z0-9]', '_')` does).
 */
export function curKey(prefixed: string): string {
  return prefixed.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/[^a-z0-9]/gu, "_");
}

/**
 * AWS tag key → CUR key: `svc:purpose` → `user_svc_purpose`; AWS-generated keys (`aws:` prefix)
 * keep their own prefix: `aws:cloudformation:stack-name` → `aws_cloudformation_stack_name`.
 */
export function curTagKey(awsKey: string): string {
  return curKey(awsKey.startsWith("aws:") ? awsKey : `user:${awsKey}`);
}

/** The value of an AWS tag key in a tag map of the given form ("" when absent). */
export function tagValue(tags: Tags, awsKey: string, form: TagKeyForm): string {
  const key = form === "aws" ? awsKey : curTagKey(awsKey);
  return Object.hasOwn(tags, key) ? (tags[key] as string) : "";
}

/**
 * Leading and trailing spaces removed (ASCII space only, exactly as ClickHouse's `trimBoth`, so the
 * SQL form of the rules gives the same answer).
 */
export function trimSpaces(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) === 32) start++;
  while (end > start && value.charCodeAt(end - 1) === 32) end--;
  return value.slice(start, end);
}

/** Whether a tag map marks its resource as the service's own infrastructure. */
export function isSvcInfrastructure(tags: Tags, form: TagKeyForm): boolean {
  return trimSpaces(tagValue(tags, SVC_PURPOSE_TAG, form)) === SVC_INFRASTRUCTURE;
}
