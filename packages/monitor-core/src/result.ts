/** One problem found while validating input, located by a path such as `[3].completed_at`. */
export interface Issue {
  path: string;
  message: string;
}

/** Validators return every issue they find instead of throwing on the first. */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: Issue[] };

/** `a.b` / `a[3]` path joining that leaves the root empty. */
export function at(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
