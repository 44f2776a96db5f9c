import { describe, expect, it } from "vitest";
import type { FeatureInput } from "./features.ts";
import { computeFeaturesV1, FEATURE_SET_V1, featureRecord } from "./features.ts";
import { mulberry32 as prng } from "./test-support/prng.ts";
import { tokenizeReference } from "./tokenize.ts";

const hits = [
  { title: "Red Running Shoes", tags: ["sport", "Shoes"] },
  { title: "Blue running jacket", tags: "outdoor" },
  { title: ["Red", "Socks"], tags: 42 },
  { title: 7, tags: [] },
];

describe("computeFeaturesV1", () => {
  it("computes every feature of feature set v1 on a hand-checked example", () => {
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

// computeFeaturesV1 avoids strings, Sets and sorting for speed. This is the definition written
// plainly, on tokenizeReference; the two must agree bit for bit on every feature.
function referenceFeatures(input: FeatureInput): number[] {
  const { hits, titleField, tagsField } = input;
  const k = hits.length;
  const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);
  const field = (hit: unknown, name: string): unknown =>
    typeof hit === "object" && hit !== null ? (hit as Record<string, unknown>)[name] : undefined;
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  const tokenSetOf = (text: string): Set<string> => new Set(tokenizeReference(text));
  const shared = (a: Set<string>, b: Set<string>): number => [...a].filter((t) => b.has(t)).length;

  const q = tokenSetOf(input.query);
  let jaccard = 0;
  let coverage = 0;
  let containingAll = 0;
  let coherence = 0;
  if (titleField !== null && k > 0) {
    const titles = hits.map((hit) => {
      const value = field(hit, titleField);
      return tokenSetOf(typeof value === "string" ? value : strings(value).join(" "));
    });
    for (const t of titles) {
      const inter = shared(q, t);
      jaccard += ratio(inter, q.size + t.size - inter);
      if (inter === q.size) containingAll++;
    }
    coverage = ratio(shared(q, new Set(titles.flatMap((t) => [...t]))), q.size);
    const nonEmpty = titles.filter((t) => t.size > 0);
    let pairSum = 0;
    for (let i = 0; i < nonEmpty.length; i++) {
      for (let j = i + 1; j < nonEmpty.length; j++) {
        const a = nonEmpty[i] as Set<string>;
        const b = nonEmpty[j] as Set<string>;
        const inter = shared(a, b);
        pairSum += ratio(inter, a.size + b.size - inter);
      }
    }
    coherence = ratio(pairSum, (nonEmpty.length * (nonEmpty.length - 1)) / 2);
  }
  let matching = 0;
  let tagCount = 0;
  if (tagsField !== null) {
    for (const hit of hits) {
      const value = field(hit, tagsField);
      const tags = typeof value === "string" ? [value] : strings(value);
      tagCount += tags.length;
      if (tags.some((tag) => tokenizeReference(tag).some((t) => q.has(t)))) matching++;
    }
  }
  return [
    q.size,
    k,
    Math.log1p(Math.max(0, input.estimatedTotalHits)),
    ratio(jaccard, k),
    coverage,
    ratio(containingAll, k),
    coherence,
    ratio(matching, k),
    ratio(tagCount, k),
  ];
}

const WORDS = [
  ..."red blue running shoes jacket socks wireless usb 4k 65w x200 a i".split(" "),
  ..."Red SHOES Running Usb".split(" "),
  ..."café Café CAFÉ cafe\u0301 größe GRÖSSE straße naïve crème".split(" "),
  ..."日本 東京 ラーメン らーめん 서울 한국".split(" "),
  ..."ＣＡＦＥ ﬁle x² ① ٣٤ İstanbul \u212aelvin Σίσυφος µm".split(" "),
];
const SEPARATORS = [" ", " ", " ", " - ", "/", ", ", "!", "\u00a0", "・"];

function randomInput(rand: () => number): FeatureInput {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const text = (maxWords: number): string => {
    let out = "";
    const n = Math.floor(rand() * (maxWords + 1));
    for (let i = 0; i < n; i++) out += (i > 0 ? pick(SEPARATORS) : "") + pick(WORDS);
    return out;
  };
  const k = rand() < 0.1 ? 0 : Math.floor(rand() * (rand() < 0.2 ? 120 : 25));
  const hits = Array.from({ length: k }, (): unknown => {
    const r = rand();
    if (r < 0.03) return null;
    if (r < 0.05) return "not an object";
    const t = rand();
    const title = t < 0.8 ? text(8) : t < 0.9 ? [text(3), 7, text(3)] : t < 0.95 ? 42 : undefined;
    const g = rand();
    const tags =
      g < 0.7
        ? Array.from({ length: Math.floor(rand() * 6) }, () => (rand() < 0.05 ? 1 : text(2)))
        : g < 0.85
          ? text(2)
          : null;
    return { title, tags };
  });
  return {
    query: text(4),
    hits,
    estimatedTotalHits: Math.floor(rand() * 1000),
    titleField: rand() < 0.1 ? null : "title",
    tagsField: rand() < 0.1 ? null : "tags",
  };
}

describe("computeFeaturesV1 against the plain definition", () => {
  it("gives bit-identical features on random result sets", () => {
    const rand = prng(7);
    const out = new Float64Array(9);
    for (let n = 0; n < 3_000; n++) {
      const input = randomInput(rand);
      const expected = referenceFeatures(input);
      const actual = Array.from(computeFeaturesV1(input, out));
      for (let f = 0; f < 9; f++) {
        if (!Object.is(actual[f], expected[f])) {
          expect.fail(`${FEATURE_SET_V1[f]}: ${actual[f]} != ${expected[f]} for ${JSON.stringify(input)}`);
        }
      }
    }
  });
});
