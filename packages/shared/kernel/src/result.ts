/** One problem found while validating input, located by a dotted/bracketed path. */
export interface Issue {
  path: string;
  message: string;
}

/** Parse, don't throw: validators return every issue they find instead of throwing on the first. */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: Issue[] };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(errors: Issue[]): Result<T> => ({ ok: false, errors });
export const issue = (path: string, message: string): Issue => ({ path, message });

/** `a.b` / `a[3]` path joining that leaves the root empty. */
export function at(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/** One line for a human: the first problem, and how many more there are. */
export function formatIssues(errors: readonly Issue[]): string {
  const first = errors[0];
  if (first === undefined) return "invalid input";
  const head = first.path === "" ? first.message : `${first.path}: ${first.message}`;
  return errors.length > 1 ? `${head} (and ${errors.length - 1} more)` : head;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
