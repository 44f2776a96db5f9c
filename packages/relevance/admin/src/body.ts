import { at, type Issue } from "@relevance/core";
import { checkJsonShape, invalid, parseJsonBody, shortPath } from "@shared/http";
import type { Context } from "hono";
import type { z } from "zod";
import { BatchCounter, batchSizeIssue } from "./document-batch.ts";
import { MAX_DETAILS, MAX_JSON_DEPTH } from "./limits.ts";

/**
 * Reads the request body as JSON whatever its Content-Type says. Customer routes answer a body that
 * is not JSON with 400; the admin PUT answers it with 422. The size was bounded by the
 * route's body limit before this reads it. Unless `shape` is false, keys named `__proto__`,
 * `constructor` or `prototype` anywhere and nesting beyond 32 levels answer 422 here, before any
 * validator or copy could drop such a key silently or reach `Object.prototype` through it.
 */
export async function readJson(
  c: Context,
  status: 400 | 422,
  {
    shape = true,
    maxItems,
  }: {
    shape?: boolean;
    /** Items the body's top-level array may have, counted as the body arrives (422 past it). */
    maxItems?: number;
  } = {},
): Promise<unknown> {
  const text = maxItems === undefined ? await c.req.text() : await readBatchText(c, maxItems);
  const value = parseJsonBody(text, status);
  if (shape) {
    const issues = checkJsonShape(value, { maxDepth: MAX_JSON_DEPTH });
    if (issues.length > 0) {
      throw invalid(
        "the request body has a forbidden shape",
        issues.map((i) => ({ path: shortPath(i.path), message: i.message })),
      );
    }
  }
  return value;
}

/**
 * The body's text, read as it arrives: each chunk is decoded and its top-level array items counted
 * (BatchCounter), and past `max` the rest is not read and the answer is 422, nothing stored. The
 * whole text is never decoded in one piece either (that alone held the event loop for about 150 ms
 * at 20 MiB).
 */
async function readBatchText(c: Context, max: number): Promise<string> {
  const body = c.req.raw.body;
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const counter = new BatchCounter();
  const parts: string[] = [];
  let sinceTurn = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    parts.push(text);
    // Chunks that arrived together are otherwise all read in one turn of the event loop.
    sinceTurn += value.length;
    if (sinceTurn >= 1024 * 1024) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (counter.feed(text, max)) {
      await reader.cancel().catch(() => undefined);
      throw invalid("the request body is over a limit", [batchSizeIssue(max)]);
    }
  }
  parts.push(decoder.decode());
  return parts.join("");
}

/** At most 100 issues, each path shortened: what an answer lists of a validator's findings. */
export function listed(issues: readonly Issue[]): Issue[] {
  return issues.slice(0, MAX_DETAILS).map((i) => ({ path: shortPath(i.path), message: i.message }));
}

/**
 * Zod's issues as `{path, message}` with the core's path syntax (`a.b[3]`); one issue per unknown
 * key; at most 100, so a body of many bad items cannot make a huge answer.
 */
export function zodIssues(error: z.ZodError): Issue[] {
  const issues: Issue[] = [];
  for (const item of error.issues) {
    if (issues.length >= MAX_DETAILS) break;
    const path = item.path.reduce<string>(
      (acc, key) => at(acc, typeof key === "number" ? key : String(key)),
      "",
    );
    if (item.code === "unrecognized_keys") {
      for (const key of item.keys.slice(0, MAX_DETAILS - issues.length)) {
        issues.push({ path: shortPath(at(path, key)), message: "is not a known field" });
      }
    } else {
      issues.push({ path: shortPath(path), message: item.message });
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
