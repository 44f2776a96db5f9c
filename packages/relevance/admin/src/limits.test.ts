import { describe, expect, it } from "vitest";
import { ADMIN_LIMITS, adminLimitRows, bodyLimitsFromEnv, DEFAULT_BODY_LIMITS } from "./limits.ts";

describe("body limits from the environment", () => {
  it("reads MAX_JSON_BODY_BYTES and MAX_DOCUMENTS_BODY_BYTES; unset or empty keeps the default", () => {
    expect(bodyLimitsFromEnv({})).toEqual({});
    expect(bodyLimitsFromEnv({ MAX_JSON_BODY_BYTES: " ", MAX_DOCUMENTS_BODY_BYTES: "" })).toEqual({});
    expect(bodyLimitsFromEnv({ MAX_JSON_BODY_BYTES: "65536", MAX_DOCUMENTS_BODY_BYTES: "1048576" })).toEqual({
      jsonBodyBytes: 65536,
      documentsBodyBytes: 1048576,
    });
  });

  it("a value that is not a positive whole number fails, naming the variable", () => {
    for (const bad of ["0", "-1", "1.5", "1e6", "1MB", "9999999999999999"]) {
      expect(() => bodyLimitsFromEnv({ MAX_JSON_BODY_BYTES: bad }), bad).toThrow(
        `MAX_JSON_BODY_BYTES must be a positive whole number of bytes, got "${bad}"`,
      );
    }
    expect(() => bodyLimitsFromEnv({ MAX_DOCUMENTS_BODY_BYTES: "lots" })).toThrow(
      /^MAX_DOCUMENTS_BODY_BYTES/,
    );
  });
});

describe("the limits table", () => {
  it("has a complete row for every bound, in the four areas, with the configured body limits", () => {
    for (const row of ADMIN_LIMITS) {
      expect(row.limit, `${row.area} ${row.field}`).toBeGreaterThan(0);
      expect(row.field).not.toBe("");
    }
    expect(ADMIN_LIMITS.filter((r) => r.env !== undefined).map((r) => [r.area, r.env, r.limit])).toEqual([
      ["admin", "MAX_JSON_BODY_BYTES", DEFAULT_BODY_LIMITS.jsonBodyBytes],
      ["customer", "MAX_JSON_BODY_BYTES", DEFAULT_BODY_LIMITS.jsonBodyBytes],
      ["documents", "MAX_DOCUMENTS_BODY_BYTES", DEFAULT_BODY_LIMITS.documentsBodyBytes],
    ]);
    const rows = adminLimitRows({ jsonBodyBytes: 10, documentsBodyBytes: 20 });
    expect(rows.filter((r) => r.env !== undefined).map((r) => r.limit)).toEqual([10, 10, 20]);
    // A row without a status (0) is not a refused request: its note must say what happens instead.
    for (const row of ADMIN_LIMITS.filter((r) => r.status === 0)) expect(row.note, row.field).toBeTruthy();
  });
});
