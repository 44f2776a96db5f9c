// The one table between search request fields and Meilisearch error codes serves both ways: our
// 422 for a field names its code, and Meilisearch's error with that code is read as that field's.
import { describe, expect, it } from "vitest";
import { FIELD_OF_SEARCH_CODE, meilisearchFields, SEARCH_FIELD_CODES } from "./meili-errors.ts";
import { retrievalErrorOf } from "./meilisearch/errors.ts";
import { RetrievalError } from "./ports.ts";

describe("the field ↔ Meilisearch code table", () => {
  it.each(Object.entries(SEARCH_FIELD_CODES))("%s ↔ %s, in both directions", (field, code) => {
    expect(FIELD_OF_SEARCH_CODE.get(code)).toBe(field);
    const ours = meilisearchFields(422, "validation_failed", "m", [{ path: field, message: "x" }]);
    expect(ours.code).toBe(code);
    const theirs = retrievalErrorOf(400, { message: "bad", code, type: "invalid_request" });
    expect(theirs).toBeInstanceOf(RetrievalError);
    expect([theirs.failure, theirs.field]).toEqual(["invalid_request", field]);
  });

  it("multi-search's own fields have codes but are not read back as a client's search field", () => {
    expect(
      meilisearchFields(422, "validation_failed", "m", [{ path: "queries[0].indexUid", message: "x" }]).code,
    ).toBe("invalid_index_uid");
    expect(retrievalErrorOf(400, { message: "bad", code: "invalid_index_uid" }).failure).toBe("unavailable");
  });
});
