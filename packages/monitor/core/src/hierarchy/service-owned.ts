/**
 * "Belongs to the service but lacks the tag". A resource is taken as the service's
 * own when any of these holds (docs/monitor-cost.md):
 *
 * 1. its `aws:cloudformation:stack-name` tag matches one of `service.stack_names` (the monitor's
 *    stacks tag everything they create with their stack name, so a resource made by the stacks is
 *    recognised even when the `svc:purpose` tag was dropped or never propagated);
 * 2. its id, its `Name` tag, or a name in its ARN's resource part starts with one of
 *    `service.name_prefixes` (case-insensitive), which covers resources created outside the stacks
 *    under the service's naming convention.
 *
 * Such a resource without `svc:purpose=svc-infrastructure` is listed as a warning: its cost is not in
 * the service's own cost.
 */
import type { ServiceOwnershipRules } from "./rules.ts";
import {
  isSvcInfrastructure,
  NAME_TAG,
  STACK_NAME_TAG,
  type TagKeyForm,
  type Tags,
  tagValue,
  trimSpaces,
} from "./tags.ts";

export interface OwnershipSubject {
  resource_id: string;
  /** Full ARN when known ("" otherwise). A resource id that is itself an ARN is read as one too. */
  arn?: string;
  tags: Tags;
}

function globRegExp(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "i");
}

/**
 * The names an ARN's resource part (after `arn:partition:service:region:account:`) can be known by:
 * the whole part and every tail after a `/` or `:` (`secret:svcmon/db-Ab` → itself, `svcmon/db-Ab`,
 * `db-Ab`), so a prefix matches a function name, a queue name or a secret's path alike.
 */
export function arnResourceNames(arn: string): string[] {
  if (!arn.startsWith("arn:")) return [];
  const parts = arn.split(":");
  if (parts.length < 6) return [];
  const resource = parts.slice(5).join(":");
  const names = [resource];
  for (let i = 0; i < resource.length; i++) {
    if ((resource[i] === "/" || resource[i] === ":") && i + 1 < resource.length)
      names.push(resource.slice(i + 1));
  }
  return names.filter((n) => n !== "");
}

function startsWithAny(value: string, prefixes: readonly string[]): string | null {
  const lower = value.toLowerCase();
  return prefixes.find((p) => lower.startsWith(p.toLowerCase())) ?? null;
}

/** Why the resource is taken as the service's own, or null when nothing says so. */
export function serviceOwnership(
  subject: OwnershipSubject,
  service: ServiceOwnershipRules,
  form: TagKeyForm,
): string | null {
  const stack = trimSpaces(tagValue(subject.tags, STACK_NAME_TAG, form));
  if (stack !== "") {
    const pattern = service.stack_names.find((p) => globRegExp(p).test(stack));
    if (pattern !== undefined) return `stack ${stack} (${STACK_NAME_TAG} matches ${pattern})`;
  }
  const prefixes = service.name_prefixes;
  if (prefixes.length === 0) return null;
  const name = trimSpaces(tagValue(subject.tags, NAME_TAG, form));
  let p = name === "" ? null : startsWithAny(name, prefixes);
  if (p !== null) return `${NAME_TAG} tag ${name} starts with ${p}`;
  p = startsWithAny(subject.resource_id, prefixes);
  if (p !== null) return `id ${subject.resource_id} starts with ${p}`;
  for (const arn of [subject.arn ?? "", subject.resource_id]) {
    for (const name of arnResourceNames(arn)) {
      p = startsWithAny(name, prefixes);
      if (p !== null) return `ARN name ${name} starts with ${p}`;
    }
  }
  return null;
}

/** The reason a resource counts as the service's own while it lacks the tag, or null. */
export function untaggedServiceReason(
  subject: OwnershipSubject,
  service: ServiceOwnershipRules,
  form: TagKeyForm,
): string | null {
  if (isSvcInfrastructure(subject.tags, form)) return null;
  return serviceOwnership(subject, service, form);
}
