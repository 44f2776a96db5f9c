// Property: the admin PUT answers 422 exactly when an oracle written from the documented rules (docs/api.md)
// says the body is invalid, 200 otherwise; a 422 writes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

// --- The oracle, from the rules, independent of the implementation. ---
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** A field name or model id: a non-empty string of at most 256 characters without control characters. */
const goodName = (v: unknown): boolean =>
  typeof v === "string" && v.length >= 1 && v.length <= 256 && !/[\u0000-\u001f\u007f-\u009f]/.test(v);

function oracleAccepts(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false; // not JSON
  }
  if (!isObject(body)) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== "relevanceTriggerConfig") return false; // one key only
  const config = body.relevanceTriggerConfig;
  if (config === null) return true; // null disables scoring
  if (!isObject(config)) return false;
  // All three sub-fields required, unknown sub-fields rejected (rules 1 and 3).
  if (Object.keys(config).sort().join(",") !== "modelId,tagsField,titleField") return false;
  return (
    goodName(config.modelId) &&
    (config.titleField === null || goodName(config.titleField)) &&
    (config.tagsField === null || goodName(config.tagsField))
  );
}

// --- Generators that hit both sides of every rule. ---
const name = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "a\u0000b", "tab\there", "del\u007f", "c1\u0085", "x".repeat(257)),
  },
  { weight: 1, arbitrary: fc.constant("x".repeat(256)) },
);
const notAName = fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.double());
const field = fc.oneof(
  { weight: 6, arbitrary: name },
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: notAName },
);
const extraKey = fc.constantFrom("model_id", "title_field", "tags_field", "modelid", "shopId", "extra");
const config = fc
  .tuple(
    fc.record(
      {
        modelId: fc.oneof(
          { weight: 8, arbitrary: name },
          { weight: 1, arbitrary: fc.constant(null) },
          notAName,
        ),
        titleField: field,
        tagsField: field,
      },
      { requiredKeys: [] },
    ),
    fc.option(fc.tuple(extraKey, fc.jsonValue()), { freq: 5 }),
  )
  .map(([record, extra]) => (extra === null ? record : { ...record, [extra[0]]: extra[1] }));
const configValue = fc.oneof(
  { weight: 8, arbitrary: config },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const body = fc.oneof(
  { weight: 10, arbitrary: configValue.map((c) => JSON.stringify({ relevanceTriggerConfig: c })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        configValue,
        fc.constantFrom("relevance_trigger_config", "version", "modelId", "x"),
        fc.jsonValue(),
      )
      .map(([c, k, v]) => JSON.stringify({ relevanceTriggerConfig: c, [k]: v })),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "null", "[]", "{}", "relevanceTriggerConfig", "{'a':1}") },
);

describe("admin PUT validation (fast-check)", () => {
  it("answers 422 exactly when the documented rules say invalid, 200 otherwise; nothing written on 422", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const path = h.configPath(account, "products");
    let accepted = 0;
    let rejected = 0;

    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const before = await h.table.get(account, "INDEX#products");
        const res = await h.admin("PUT", path, text);
        const after = await h.table.get(account, "INDEX#products");
        if (oracleAccepts(text)) {
          accepted++;
          expect(res.status, res.text).toBe(200);
          const sent = JSON.parse(text).relevanceTriggerConfig;
          expect(res.body.relevanceTriggerConfig).toEqual(sent);
          expect(res.body.version).toBe((before?.version ?? 0) + 1);
          expect(after?.version).toBe(res.body.version);
          expect((await h.admin("GET", path)).body.relevanceTriggerConfig).toEqual(sent);
        } else {
          rejected++;
          expect(res.status, text).toBe(422);
          expect(res.body.error.code).toMatch(/^(validation_failed|invalid_json)$/);
          if (res.body.error.code === "validation_failed") {
            expect(res.body.error.details.length).toBeGreaterThan(0);
            for (const d of res.body.error.details)
              expect(d).toEqual({ path: expect.any(String), message: expect.any(String) });
          }
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 400 },
    );
    // Both sides were exercised substantially.
    expect(accepted).toBeGreaterThan(40);
    expect(rejected).toBeGreaterThan(40);
  });

  it("names every problem of a body at once", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const res = await h.admin("PUT", h.configPath(account, "products"), {
      relevanceTriggerConfig: { modelId: "", title_field: "t", tagsField: 3 },
      other: true,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "other", message: expect.any(String) },
      { path: "relevanceTriggerConfig.title_field", message: "is not a known field" },
      { path: "relevanceTriggerConfig.modelId", message: "must not be empty" },
      { path: "relevanceTriggerConfig.titleField", message: expect.stringContaining("is required") },
      {
        path: "relevanceTriggerConfig.tagsField",
        message: expect.stringContaining("must be a string or null"),
      },
    ]);
  });
});
