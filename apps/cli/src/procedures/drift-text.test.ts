import type { ModelDrift } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { driftLines } from "./drift-text.ts";

describe("relevance quality's drift block", () => {
  it("prints the latest day's score PSI and only the features above the threshold, or why there is no profile", () => {
    const drift: ModelDrift[] = [
      {
        modelId: "a:p:v1",
        status: "ok",
        threshold: 0.2,
        profileRows: 1000,
        days: [
          { day: "2026-03-09", score: { status: "ok", psi: 0.9, n: 500, drifted: true }, features: [] },
          {
            day: "2026-03-10",
            score: { status: "ok", psi: 0.05, n: 400, drifted: false },
            features: [
              { feature: "hit_count", result: { status: "ok", psi: 0.31, n: 400, drifted: true } },
              { feature: "jaccard", result: { status: "ok", psi: 0.01, n: 400, drifted: false } },
              { feature: "bm25", result: { status: "not_profiled", reason: "x" } },
            ],
          },
        ],
      },
      { modelId: "a:p:v2", status: "no_profile", reason: "the model's artifact carries no training profile" },
    ];
    expect(driftLines(drift)).toEqual([
      "",
      "drift against the training profile (PSI, latest day):",
      "  model a:p:v1 on 2026-03-10 (threshold 0.2): score PSI 0.050 (n = 400)",
      "    hit_count: PSI 0.310 (n = 400) DRIFTED",
      "  model a:p:v2: no training profile (the model's artifact carries no training profile)",
    ]);
    expect(driftLines([])).toEqual([]);
  });
});
