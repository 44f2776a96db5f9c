import { at, type Issue } from "@relevance/core";
import { ApiError, invalid } from "@relevance/http";
import type { Context } from "hono";
import type { z } from "zod";

/**
 * Reads the request body as JSON whatever its Content-Type says. Customer routes answer a body that
 * is not JSON with 400; the admin PUT answers it with 422 (spec §2).
 */
export async function readJson(c: Context, status: 400 | 422): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(status, "invalid_json", "the request body is not valid JSON");
  }
}

/** Zod's issues as `{path, message}` with the core's path syntax (`a.b[3]`); one issue per unknown key. */
export function zodIssues(error: z.ZodError): Issue[] {
  const issues: Issue[] = [];
  for (const item of error.issues) {
    const path = item.path.reduce<string>(
      (acc, key) => at(acc, typeof key === "number" ? key : String(key)),
      "",
    );
    if (item.code === "unrecognized_keys") {
      for (const key of item.keys) issues.push({ path: at(path, key), message: "is not a known field" });
    } else {
      issues.push({ path, message: item.message });
    }
  }
  return issues;
}

/** Parses `input` with `schema` or throws a 422 carrying every problem. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, message: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw invalid(message, zodIssues(result.error));
  return result.data;
}
