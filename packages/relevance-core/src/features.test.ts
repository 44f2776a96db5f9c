import { describe, expect, it } from "vitest";
import { computeFeaturesV1, FEATURE_SET_V1, featureRecord } from "./features.ts";

const hits = [
  { title: "Red Running Shoes", tags: ["sport", "Shoes"] },
  { title: "Blue running jacket", tags: "outdoor" },
  { title: ["Red", "Socks"], tags: 42 },
  { title: 7, tags: [] },
];

describe("computeFeaturesV1", () => {
  it("computes every feature of spec §4 on a hand-checked example", () => {
    const f = featureRecord(
      computeFeaturesV1({
        query: "red running SHOES",
        hits,
        estimatedTotalHits: 99,
        titleField: "title",
        tagsField: "tags",
      }),
    );
    expect(f.query_token_count).toBe(3);
    expect(f.hit_count).toBe(4);
    expect(f.log_total_hits).toBeCloseTo(Math.log(100), 15);
    // |Q∩T|/|Q∪T|: 3/3, 1/5, 1/4, 0/3
    expect(f.jaccard).toBeCloseTo((1 + 0.2 + 0.25 + 0) / 4, 15);
    expect(f.title_coverage).toBe(1);
    expect(f.query_words_in_titles).toBe(0.25);
    // non-empty titles T1, T2, T3: J(T1,T2)=1/5, J(T1,T3)=1/4, J(T2,T3)=0
    expect(f.topic_coherence).toBeCloseTo((0.2 + 0.25 + 0) / 3, 15);
    expect(f.tag_match_fraction).toBe(0.25);
    expect(f.avg_tag_count).toBe(0.75);
  });

  it("sets the four title features to 0 when titleField is null", () => {
    const f = featureRecord(
      computeFeaturesV1({
        query: "red shoes",
        hits,
        estimatedTotalHits: 4,
        titleField: null,
        tagsField: "tags",
      }),
    );
    expect([f.jaccard, f.title_coverage, f.query_words_in_titles, f.topic_coherence]).toEqual([0, 0, 0, 0]);
    expect(f.tag_match_fraction).toBe(0.25);
  });

  it("sets the two tag features to 0 when tagsField is null", () => {
    const f = featureRecord(
      computeFeaturesV1({
        query: "red shoes",
        hits,
        estimatedTotalHits: 4,
        titleField: "title",
        tagsField: null,
      }),
    );
    expect([f.tag_match_fraction, f.avg_tag_count]).toEqual([0, 0]);
    expect(f.title_coverage).toBe(1);
  });

  it("gives 0 for every ratio with a zero denominator (no hits)", () => {
    const v = computeFeaturesV1({
      query: "anything at all",
      hits: [],
      estimatedTotalHits: 0,
      titleField: "title",
      tagsField: "tags",
    });
    expect(Array.from(v)).toEqual([3, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("treats a missing field, a non-object hit or a wrong type as empty", () => {
    const v = computeFeaturesV1({
      query: "red",
      hits: [null, "text", { name: "red" }],
      estimatedTotalHits: 3,
      titleField: "title",
      tagsField: "tags",
    });
    expect(Array.from(v.subarray(3))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("has no title pairs to average with a single non-empty title", () => {
    const v = computeFeaturesV1({
      query: "red",
      hits: [{ title: "red" }, { title: "" }],
      estimatedTotalHits: 2,
      titleField: "title",
      tagsField: null,
    });
    expect(featureRecord(v).topic_coherence).toBe(0);
  });

  it("matches tags and titles after NFKC and lower-casing", () => {
    const f = featureRecord(
      computeFeaturesV1({
        query: "ＣＡＦＥ",
        hits: [{ t: "Cafe latte", g: ["CAFE"] }],
        estimatedTotalHits: 1,
        titleField: "t",
        tagsField: "g",
      }),
    );
    expect(f.title_coverage).toBe(1);
    expect(f.tag_match_fraction).toBe(1);
  });

  it("counts repeated query words once (Q is a set)", () => {
    const f = featureRecord(
      computeFeaturesV1({
        query: "red red red",
        hits: [{ title: "red" }],
        estimatedTotalHits: 1,
        titleField: "title",
        tagsField: null,
      }),
    );
    expect(f.query_token_count).toBe(1);
    expect(f.jaccard).toBe(1);
  });

  it("names its output in canonical order", () => {
    expect(FEATURE_SET_V1).toHaveLength(9);
    expect(Object.keys(featureRecord(new Float64Array(9)))).toEqual([...FEATURE_SET_V1]);
  });
});
