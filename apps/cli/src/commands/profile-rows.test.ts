import { MAX_PROFILE_ROWS } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { readProfileRows } from "./profile-rows.ts";

describe("readProfileRows: the training rows of --profile-rows", () => {
  it("keeps the model's features of each training row, missing ones as null, and leaves held-out rows out", () => {
    const text = [
      '{"features": {"jaccard": 0.5, "query_token_count": 2}, "label": 1}',
      '{"features": {"query_token_count": 3}}',
      '{"features": {"jaccard": 0.9}, "split": "holdout"}',
    ].join("\n");
    expect(readProfileRows(text, "f.jsonl", ["jaccard"])).toEqual([{ jaccard: 0.5 }, { jaccard: null }]);
  });

  it(`refuses more than ${MAX_PROFILE_ROWS} rows before parsing any (a line that is not JSON is never reached)`, () => {
    const text = `not json\n${"{}\n".repeat(MAX_PROFILE_ROWS)}`;
    expect(() => readProfileRows(text, "big.jsonl", ["jaccard"])).toThrow(
      `big.jsonl: has ${MAX_PROFILE_ROWS + 1} rows, above the limit of ${MAX_PROFILE_ROWS} for --profile-rows`,
    );
  });

  it("refuses a file without training rows, and a non-number value naming its line", () => {
    expect(() => readProfileRows('{"features": {}, "split": "holdout"}\n', "f.jsonl", ["jaccard"])).toThrow(
      /has no training rows/,
    );
    expect(() =>
      readProfileRows('{"features": {}}\n{"features": {"jaccard": "x"}}', "f.jsonl", ["jaccard"]),
    ).toThrow(/f\.jsonl line 2: features\.jaccard/);
  });
});
