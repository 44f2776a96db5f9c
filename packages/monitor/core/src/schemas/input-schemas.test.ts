import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charCount, keepLastChars } from "../chars.ts";
import {
  MAX_ACCOUNT_ID_CHARS,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_REGISTRY_MINUTES,
  MAX_RUN_BATCH,
  MAX_RUN_ERROR_CHARS,
  MONITOR_LIMITS,
} from "../limits.ts";
import { MAX_TIMESTAMP_MS, parseTimestamp } from "../timestamp.ts";
import { validateAccountUpdate, validateCollectorSpec } from "./registry.ts";
import { validateRunBatch, validateRunRecord } from "./run-record.ts";

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const good = {
  run_id: "3F2504E0-4F89-41D3-9A0C-0305E82C3301",
  collector: "config_ec2",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  started_at: "2025-06-01T12:00:00.000Z",
  completed_at: "2025-06-01T12:00:01.500Z",
  status: "succeeded",
  events_produced: 3,
  rows_inserted: 2,
};

describe("validateRunRecord: accepted input", () => {
  it("normalises timestamps to epoch ms, lower-cases run_id, applies defaults", () => {
    expect(validateRunRecord(good)).toEqual({
      ok: true,
      value: {
        run_id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        collector: "config_ec2",
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
        started_at: T0,
        completed_at: T0 + 1500,
        status: "succeeded",
        events_produced: 3,
        rows_inserted: 2,
        error: "",
        duration_ms: 1500,
      },
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["run_id absent (store generates it)", { run_id: undefined }, {}],
    ["run_id null", { run_id: null }, {}],
    [
      "epoch ms timestamps",
      { started_at: T0, completed_at: T0 },
      { started_at: T0, completed_at: T0, duration_ms: 0 },
    ],
    ["offset and space separator", { started_at: "2025-06-01 14:00:00+02:00" }, { started_at: T0 }],
    ["no seconds, compact offset", { started_at: "2025-06-01T07:00-0500" }, { started_at: T0 }],
    ["microseconds truncated", { completed_at: "2025-06-01T12:00:01.500999Z" }, { completed_at: T0 + 1500 }],
    [
      "explicit duration and error kept",
      { duration_ms: 7, error: "warn" },
      { duration_ms: 7, error: "warn" },
    ],
    [
      "counters at 0 and 2^32 − 1",
      { events_produced: 0, rows_inserted: 4294967295 },
      { events_produced: 0, rows_inserted: 4294967295 },
    ],
    ["unknown fields ignored", { extra: 1 }, {}],
  ])("%s", (_name, patch, expected) => {
    const r = validateRunRecord({ ...good, ...patch });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value).toMatchObject(expected);
      expect(r.value).not.toHaveProperty("extra");
      if (patch.run_id === undefined && "run_id" in patch) expect(r.value).not.toHaveProperty("run_id");
    }
  });
});

describe("validateRunRecord: errors name the field", () => {
  const omit = (k: keyof typeof good) => {
    const { [k]: _, ...rest } = good;
    return rest;
  };
  it.each<[string, unknown, string, string]>([
    ["unknown status", { ...good, status: "ok" }, "status", "must be one of succeeded, failed, partial"],
    ["negative counter", { ...good, events_produced: -1 }, "events_produced", "must not be negative"],
    ["counter = 2^32", { ...good, rows_inserted: 4294967296 }, "rows_inserted", "below 2^32"],
    ["non-integer counter", { ...good, events_produced: 1.5 }, "events_produced", "must be an integer"],
    ["NaN counter", { ...good, events_produced: Number.NaN }, "events_produced", "must be an integer"],
    ["string counter", { ...good, rows_inserted: "3" }, "rows_inserted", "must be a number"],
    ["negative duration", { ...good, duration_ms: -5 }, "duration_ms", "must not be negative"],
    ["duration ≥ 2^32", { ...good, duration_ms: 2 ** 32 }, "duration_ms", "below 2^32"],
    [
      "derived duration ≥ 2^32",
      { ...good, started_at: 0, completed_at: 2 ** 32 },
      "duration_ms",
      "exceeds 2^32",
    ],
    [
      "completed_at before started_at",
      { ...good, completed_at: "2025-06-01T11:59:59.999Z" },
      "completed_at",
      "before started_at",
    ],
    ["unparsable timestamp", { ...good, started_at: "yesterday" }, "started_at", "unparsable"],
    ["timestamp without zone", { ...good, started_at: "2025-06-01T12:00:00" }, "started_at", "unparsable"],
    ["date only", { ...good, started_at: "2025-06-01" }, "started_at", "unparsable"],
    ["no such day", { ...good, started_at: "2025-02-30T00:00:00Z" }, "started_at", "no such day"],
    ["hour 24", { ...good, completed_at: "2025-06-01T24:00:00Z" }, "completed_at", "out of range"],
    ["fractional epoch", { ...good, started_at: 1.5 }, "started_at", "integer"],
    ["negative epoch", { ...good, started_at: -1 }, "started_at", "out of range"],
    ["year 2300", { ...good, completed_at: "2300-01-01T00:00:00Z" }, "completed_at", "out of range"],
    ["boolean timestamp", { ...good, started_at: true }, "started_at", "ISO 8601"],
    ["missing collector", omit("collector"), "collector", "is required"],
    ["missing account", omit("cloud_account_id"), "cloud_account_id", "is required"],
    ["missing region", omit("cloud_region"), "cloud_region", "is required"],
    ["missing started_at", omit("started_at"), "started_at", "is required"],
    ["missing completed_at", omit("completed_at"), "completed_at", "is required"],
    ["missing status", omit("status"), "status", "is required"],
    ["missing events_produced", omit("events_produced"), "events_produced", "is required"],
    ["missing rows_inserted", omit("rows_inserted"), "rows_inserted", "is required"],
    ["empty collector", { ...good, collector: " " }, "collector", "must not be empty"],
    ["numeric region", { ...good, cloud_region: 1 }, "cloud_region", "must be a string"],
    ["run_id not a UUID", { ...good, run_id: "abc" }, "run_id", "UUID"],
    ["error not a string", { ...good, error: 42 }, "error", "must be a string"],
    ["not an object", [good], "", "must be an object"],
  ])("%s → %s", (_name, input, path, message) => {
    const r = validateRunRecord(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      const hit = r.errors.find((e) => e.path === path);
      expect(hit, JSON.stringify(r.errors)).toBeDefined();
      expect(hit?.message).toContain(message);
    }
  });

  it("reports every error at once", () => {
    const r = validateRunRecord({ status: "nope", events_produced: -1 });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => e.path).sort()).toEqual([
        "cloud_account_id",
        "cloud_region",
        "collector",
        "completed_at",
        "events_produced",
        "rows_inserted",
        "started_at",
        "status",
      ]);
  });
});

describe("validateRunBatch: one record or an array, all or nothing", () => {
  it.each<[string, unknown, number]>([
    ["one record", good, 1],
    ["array", [good, { ...good, run_id: undefined }], 2],
    ["empty array", [], 0],
    ["duplicate run_id is not an error", [good, good], 2],
  ])("%s → ok with %i", (_name, input, n) => {
    const r = validateRunBatch(input);
    expect(r.ok && r.value.length).toBe(n);
  });

  it("one bad record rejects the batch, with indexed paths", () => {
    const batch = [
      good,
      good,
      good,
      { ...good, completed_at: "2025-06-01T11:00:00Z", rows_inserted: -1 },
      "x",
    ];
    expect(validateRunBatch(batch)).toEqual({
      ok: false,
      errors: [
        { path: "[3].completed_at", message: "must not be before started_at" },
        { path: "[3].rows_inserted", message: "must not be negative" },
        { path: "[4]", message: "must be an object" },
      ],
    });
  });

  it("a single bad record has bare field paths", () => {
    expect(validateRunBatch({ ...good, status: "done" })).toMatchObject({
      ok: false,
      errors: [{ path: "status" }],
    });
  });
});

describe("validateAccountUpdate", () => {
  it("accepts and keeps an optional updated_at", () => {
    expect(validateAccountUpdate({ account_id: "1", account_name: "prod", svc_status: "no_access" })).toEqual(
      {
        ok: true,
        value: { account_id: "1", account_name: "prod", svc_status: "no_access" },
      },
    );
    expect(
      validateAccountUpdate({ account_id: "1", account_name: "prod", svc_status: "active", updated_at: T0 }),
    ).toMatchObject({ ok: true, value: { updated_at: T0 } });
  });

  it.each<[string, unknown, string, string]>([
    [
      "empty name",
      { account_id: "1", account_name: "", svc_status: "active" },
      "account_name",
      "must not be empty",
    ],
    ["missing name", { account_id: "1", svc_status: "active" }, "account_name", "is required"],
    [
      "unknown status",
      { account_id: "1", account_name: "a", svc_status: "disabled" },
      "svc_status",
      "must be one of",
    ],
    ["missing id", { account_name: "a", svc_status: "active" }, "account_id", "is required"],
    [
      "bad updated_at",
      { account_id: "1", account_name: "a", svc_status: "active", updated_at: "soon" },
      "updated_at",
      "unparsable",
    ],
    ["not an object", null, "", "must be an object"],
  ])("%s → %s", (_name, input, path, message) => {
    const r = validateAccountUpdate(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual({ path, message: expect.stringContaining(message) });
  });
});

describe("validateCollectorSpec", () => {
  it("defaults the freshness threshold to 60", () => {
    expect(validateCollectorSpec({ name: "config_ec2", expected_interval_minutes: 15 })).toEqual({
      ok: true,
      value: { name: "config_ec2", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
    });
  });

  it.each<[string, unknown, string]>([
    ["zero interval", { name: "x", expected_interval_minutes: 0 }, "expected_interval_minutes"],
    ["fractional interval", { name: "x", expected_interval_minutes: 1.5 }, "expected_interval_minutes"],
    ["string interval", { name: "x", expected_interval_minutes: "15" }, "expected_interval_minutes"],
    ["missing interval", { name: "x" }, "expected_interval_minutes"],
    [
      "negative threshold",
      { name: "x", expected_interval_minutes: 15, freshness_threshold_minutes: -60 },
      "freshness_threshold_minutes",
    ],
    ["missing name", { expected_interval_minutes: 15 }, "name"],
  ])("%s → %s", (_name, input, path) => {
    const r = validateCollectorSpec(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toContain(path);
  });
});

describe("parseTimestamp", () => {
  it("leap day and the range ends", () => {
    expect(parseTimestamp("2024-02-29T00:00:00Z")).toEqual({ ok: true, ms: Date.UTC(2024, 1, 29) });
    expect(parseTimestamp("1970-01-01T00:00:00Z")).toEqual({ ok: true, ms: 0 });
    expect(parseTimestamp("2299-12-31T23:59:59.999Z").ok).toBe(true);
    expect(parseTimestamp("2023-02-29T00:00:00Z").ok).toBe(false);
  });

  // The form Date.prototype.toISOString writes is read by a fast path; "+00:00" for "Z" is the same
  // instant read by the general parser, so the two must agree on every such string, valid or not.
  const general = (s: string) => parseTimestamp(`${s.slice(0, -1)}+00:00`);

  it("reads toISOString's form as the general parser does, for any instant in range", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TIMESTAMP_MS }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(parseTimestamp(iso)).toEqual({ ok: true, ms });
        expect(general(iso)).toEqual({ ok: true, ms });
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses in that form exactly what the general parser refuses (no such day, hour 24, year 1969)", () => {
    const pad = (n: number, w: number) => String(n).padStart(w, "0");
    fc.assert(
      fc.property(
        fc.record({
          y: fc.oneof(fc.integer({ min: 1960, max: 2310 }), fc.constantFrom(1900, 2000, 2100, 2024, 2023)),
          mo: fc.integer({ min: 0, max: 13 }),
          d: fc.integer({ min: 0, max: 32 }),
          h: fc.integer({ min: 0, max: 25 }),
          mi: fc.integer({ min: 0, max: 60 }),
          s: fc.integer({ min: 0, max: 60 }),
          f: fc.integer({ min: 0, max: 999 }),
        }),
        ({ y, mo, d, h, mi, s, f }) => {
          const iso = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(f, 3)}Z`;
          const a = parseTimestamp(iso);
          const b = general(iso);
          expect(a.ok).toBe(b.ok);
          if (a.ok && b.ok) expect(a.ms).toBe(b.ms);
        },
      ),
      { numRuns: 3000 },
    );
    for (const iso of ["2024-02-29T12:00:00.000Z", "2100-02-29T00:00:00.000Z", "2000-02-29T00:00:00.000Z"])
      expect(parseTimestamp(iso).ok).toBe(general(iso).ok);
    expect(parseTimestamp("2100-02-29T00:00:00.000Z").ok).toBe(false);
    expect(parseTimestamp("1969-12-31T23:59:59.999Z").ok).toBe(false);
    expect(parseTimestamp("2024-01-01T24:00:00.000Z").ok).toBe(false);
    expect(parseTimestamp("2024-01-01T00:00:00.00xZ").ok).toBe(false);
  });
});

describe("input bounds (limits.ts): over a bound is an error naming the field and the limit", () => {
  const long = (n: number, ch = "a") => ch.repeat(n);

  it.each<[string, Record<string, unknown>, string, string]>([
    ["collector of 65 characters", { collector: long(65) }, "collector", "at most 64 characters"],
    ["collector with a space", { collector: "config ec2" }, "collector", "letters, digits"],
    ["collector with a slash", { collector: "../etc" }, "collector", "letters, digits"],
    ["account id of 129 characters", { cloud_account_id: long(129, "1") }, "cloud_account_id", "at most 128"],
    ["account id with a newline", { cloud_account_id: "1111\n2222" }, "cloud_account_id", "letters, digits"],
    ["region of 65 characters", { cloud_region: long(65) }, "cloud_region", "at most 64 characters"],
    ["region with a dot", { cloud_region: "us.east" }, "cloud_region", "letters, digits, '_' or '-'"],
    ["error of 4097 characters", { error: long(4097) }, "error", "at most 4096 characters"],
  ])("%s", (_name, patch, path, message) => {
    const r = validateRunRecord({ ...good, ...patch });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it("accepts every field exactly at its bound, counting characters, not UTF-16 units", () => {
    const r = validateRunRecord({
      ...good,
      collector: `c${long(MAX_COLLECTOR_NAME_CHARS - 1, "_")}`,
      cloud_account_id: `ocid1.tenancy.oc1..${long(MAX_ACCOUNT_ID_CHARS - 19)}`,
      cloud_region: long(MAX_REGION_CHARS),
      // 4096 astral characters are 8192 UTF-16 units.
      error: long(MAX_RUN_ERROR_CHARS, "😀"),
    });
    expect(r.ok, JSON.stringify(!r.ok && r.errors)).toBe(true);
  });

  it(`refuses a batch of more than ${MAX_RUN_BATCH} records before looking at any of them`, () => {
    const batch = Array.from({ length: MAX_RUN_BATCH + 1 }, () => "not a record");
    expect(validateRunBatch(batch)).toEqual({
      ok: false,
      errors: [
        { path: "", message: `must hold at most ${MAX_RUN_BATCH} run records (got ${MAX_RUN_BATCH + 1})` },
      ],
    });
    expect(validateRunBatch(Array.from({ length: MAX_RUN_BATCH }, () => good)).ok).toBe(true);
  });

  it("bounds the account name and refuses control characters in it; the account id has the run's bounds", () => {
    const base = { account_id: "111111111111", svc_status: "active" };
    expect(validateAccountUpdate({ ...base, account_name: long(MAX_ACCOUNT_NAME_CHARS) }).ok).toBe(true);
    expect(validateAccountUpdate({ ...base, account_name: long(MAX_ACCOUNT_NAME_CHARS + 1) })).toEqual({
      ok: false,
      errors: [{ path: "account_name", message: "must be at most 256 characters" }],
    });
    expect(validateAccountUpdate({ ...base, account_name: "prod\u001b[31m" })).toEqual({
      ok: false,
      errors: [{ path: "account_name", message: "must not contain control characters" }],
    });
    expect(validateAccountUpdate({ ...base, account_id: "a b", account_name: "prod" })).toMatchObject({
      ok: false,
      errors: [{ path: "account_id" }],
    });
  });

  it("bounds the registry's name and minutes", () => {
    const spec = { name: "config_ec2", expected_interval_minutes: 15 };
    expect(validateCollectorSpec({ ...spec, name: long(65) })).toEqual({
      ok: false,
      errors: [{ path: "name", message: "must be at most 64 characters" }],
    });
    expect(
      validateCollectorSpec({ ...spec, expected_interval_minutes: MAX_REGISTRY_MINUTES + 1 }),
    ).toMatchObject({
      ok: false,
      errors: [{ path: "expected_interval_minutes", message: expect.stringContaining("at most 525600") }],
    });
    expect(
      validateCollectorSpec({ ...spec, freshness_threshold_minutes: MAX_REGISTRY_MINUTES + 1 }),
    ).toMatchObject({ ok: false, errors: [{ path: "freshness_threshold_minutes" }] });
    expect(
      validateCollectorSpec({
        ...spec,
        expected_interval_minutes: MAX_REGISTRY_MINUTES,
        freshness_threshold_minutes: MAX_REGISTRY_MINUTES,
      }).ok,
    ).toBe(true);
  });
});

describe("keepLastChars and charCount", () => {
  it("keeps the end of a long text in whole characters", () => {
    expect(keepLastChars("abcdef", 3)).toBe("def");
    expect(keepLastChars("abc", 3)).toBe("abc");
    expect(keepLastChars("a😀b😀", 2)).toBe("b😀");
    expect(charCount("😀😀")).toBe(2);
    expect(charCount("x".repeat(100), 10)).toBe(11);
  });
});

describe("MONITOR_LIMITS", () => {
  it("documents the numbers the validators enforce, one row per bounded field", () => {
    const row = (field: string, unit: string) =>
      MONITOR_LIMITS.find((r) => r.field === field && r.unit === unit)?.limit;
    expect(row("collector", "characters")).toBe(MAX_COLLECTOR_NAME_CHARS);
    expect(row("cloud_account_id", "characters")).toBe(MAX_ACCOUNT_ID_CHARS);
    expect(row("cloud_region", "characters")).toBe(MAX_REGION_CHARS);
    expect(row("error", "characters")).toBe(MAX_RUN_ERROR_CHARS);
    expect(row("account_name", "characters")).toBe(MAX_ACCOUNT_NAME_CHARS);
    expect(row("body", "items")).toBe(MAX_RUN_BATCH);
    expect(row("body", "bytes")).toBe(1024 * 1024);
    for (const r of MONITOR_LIMITS) {
      expect(r.area).toBe("monitor");
      expect(r.limit).toBeGreaterThan(0);
    }
  });
});
