// A document over a per-document limit is rejected with its reason and the rest of the batch is
// stored (as a failed task would be in Meilisearch); the batch answers 202 with both counts.
import { describe, expect, it } from "vitest";
import { validateDocuments } from "./documents.ts";
import {
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENT_DEPTH,
  MAX_DOCUMENT_FIELDS,
  MAX_DOCUMENT_STRING_BYTES,
  MAX_REJECTED_LISTED,
} from "./limits.ts";
import { makeHarness } from "./test-support/harness.ts";

const DOCS = "/api/v1/indexes/products/documents";
const utf8 = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** A document of exactly `bytes` bytes as stored, in strings each within the value limit. */
function docOf(id: string, bytes: number): Record<string, unknown> {
  const doc: Record<string, string> = { id, a: "", b: "" };
  const fill = bytes - utf8(doc);
  doc.a = "x".repeat(Math.floor(fill / 2));
  doc.b = "x".repeat(fill - Math.floor(fill / 2));
  return doc;
}

/** A document nested `levels` deep, the document itself being level 1. */
function nested(id: string, levels: number): Record<string, unknown> {
  let inner: unknown = 1;
  for (let i = 0; i < levels; i++) inner = { a: inner };
  return { id, ...(inner as Record<string, unknown>) };
}

async function setup() {
  const h = makeHarness();
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  return { h, account, post: (body: unknown) => h.customer(apiKey, "POST", DOCS, body) };
}

describe("documents limits", () => {
  it("stores the documents within every limit and rejects each one over a limit with its field and the limit", async () => {
    const { h, account, post } = await setup();
    // 3 bytes of UTF-8 each: the value limit is in bytes, not characters.
    const euro = "€".repeat(Math.floor(MAX_DOCUMENT_STRING_BYTES / 3) + 1);
    const manyFields = Object.fromEntries(
      Array.from({ length: MAX_DOCUMENT_FIELDS }, (_, i) => [`f${i}`, 1]),
    );
    const batch = [
      docOf("at-size", MAX_DOCUMENT_BYTES),
      docOf("over-size", MAX_DOCUMENT_BYTES + 1),
      { id: "long-value", variants: [{ sku: "1" }, { description: euro }] },
      { id: "value-at-limit", description: "v".repeat(MAX_DOCUMENT_STRING_BYTES) },
      { ...manyFields, id: 7 },
      { id: "fields-at-limit", ...Object.fromEntries(Object.entries(manyFields).slice(1)) },
      nested("too-deep", MAX_DOCUMENT_DEPTH + 1),
      nested("deep-enough", MAX_DOCUMENT_DEPTH),
      { id: "plain", title: "Red shoe" },
    ];
    const res = await post(batch);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      received: 9,
      accepted: 5,
      rejected: [
        {
          index: 1,
          id: "over-size",
          path: "[1]",
          reason: "is larger than the limit of 100 KiB as stored (UTF-8 JSON)",
        },
        {
          index: 2,
          id: "long-value",
          path: "[2].variants[1].description",
          reason: `is ${utf8(euro) - 2} bytes, more than the limit of 64 KiB for one value`,
        },
        {
          index: 4,
          id: 7,
          path: "[4]",
          reason: "has more than the limit of 1000 distinct fields (nested ones by dotted name)",
        },
        {
          index: 6,
          id: "too-deep",
          path: `[6]${".a".repeat(MAX_DOCUMENT_DEPTH)}`,
          reason: "nests deeper than the limit of 20 levels",
        },
      ],
    });
    const stored = (await h.documents.list(account, "products", 0, 100)).map((d) => d.id).sort();
    expect(stored).toEqual(["at-size", "deep-enough", "fields-at-limit", "plain", "value-at-limit"]);
  });

  it("nested fields count once by their dotted name, however many array items repeat them", async () => {
    const { post } = await setup();
    const variants = Array.from({ length: 2000 }, (_, i) => ({ sku: `s${i}`, size: i }));
    const res = await post([{ id: "1", variants }]);
    expect(res.body).toMatchObject({ accepted: 1, rejected: [] });
  });

  it("a batch where every document is refused still answers 202 with every reason, and stores nothing", async () => {
    const { h, post } = await setup();
    const before = h.dump();
    const res = await post([docOf("a", MAX_DOCUMENT_BYTES + 1), docOf("b", MAX_DOCUMENT_BYTES + 1)]);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ received: 2, accepted: 0 });
    expect(res.body.rejected.map((r: { id: string }) => r.id)).toEqual(["a", "b"]);
    expect(h.dump()).toEqual(before);
  });

  it("lists at most 100 rejected documents; received - accepted is the total", async () => {
    const { post } = await setup();
    const deep = Array.from({ length: 150 }, (_, i) => nested(`d${i}`, MAX_DOCUMENT_DEPTH + 1));
    const res = await post([...deep, { id: "ok" }]);
    expect(res.body.received - res.body.accepted).toBe(150);
    expect(res.body.rejected).toHaveLength(MAX_REJECTED_LISTED);
  });

  it("a malformed batch is still refused whole with 422 (missing or bad primary keys)", async () => {
    const { h, post } = await setup();
    const before = h.dump();
    const res = await post([docOf("big", MAX_DOCUMENT_BYTES + 1), { title: "no id" }]);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "[1].id", message: "is required (the index's primary key)" },
    ]);
    expect(h.dump()).toEqual(before);
  });

  it("a document nested a hundred thousand levels deep is rejected without exhausting the stack", () => {
    const text = `[{"id":"deep","a":${"[".repeat(100_000)}${"]".repeat(100_000)}}]`;
    const result = validateDocuments(JSON.parse(text), "id");
    expect(result).toMatchObject({
      ok: true,
      docs: [],
      rejected: [{ id: "deep", reason: expect.stringContaining("20 levels") }],
    });
  });
});
