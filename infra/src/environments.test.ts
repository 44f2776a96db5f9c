import { describe, expect, it } from "vitest";
import { readSearchEnvironments, SEARCH_ENVIRONMENTS, validateSearchEnvironments } from "./environments.ts";

const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  kind: "cloud",
  kvNamespaceId: "",
  storeAccountId: "",
  settingsTable: `${name}-EcomIndexSettingsTable`,
  awsRegion: "eu-west-1",
  adminBaseUrl: "",
  searchBaseUrl: "",
  ...extra,
});
const file = (overrides: Record<string, unknown> = {}) => ({
  local: { kind: "local" },
  ...Object.fromEntries(SEARCH_ENVIRONMENTS.map((n) => [n, entry(n)])),
  ...overrides,
});

describe("validateSearchEnvironments", () => {
  it("reads the repository's relevance.environments.json", () => {
    expect(readSearchEnvironments().map((e) => e.name)).toEqual([...SEARCH_ENVIRONMENTS]);
  });

  it("keeps filled-in Cloudflare ids and leaves empty ones empty", () => {
    const id = "0123456789abcdef0123456789abcdef";
    const r = validateSearchEnvironments(
      file({ prod: entry("prod", { kvNamespaceId: id, storeAccountId: id }) }),
    );
    expect(r.ok && r.value.find((e) => e.name === "prod")).toMatchObject({
      kvNamespaceId: id,
      storeAccountId: id,
    });
    expect(r.ok && r.value.find((e) => e.name === "dev")).toMatchObject({
      kvNamespaceId: "",
      storeAccountId: "",
    });
  });

  it("names every field at fault", () => {
    const r = validateSearchEnvironments(
      file({
        dev: entry("dev", { settingsTable: "settings", awsRegion: "Ireland" }),
        prod: entry("prod", { kvNamespaceId: "not-an-id" }),
        staging: undefined,
      }),
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        { path: "dev.awsRegion", message: "must be an AWS region such as eu-west-1" },
        {
          path: "dev.settingsTable",
          message: "must be dev-EcomIndexSettingsTable (the admin Lambda derives the table name from ENV)",
        },
        { path: "staging", message: "is missing: every search environment needs an entry" },
        { path: "prod.kvNamespaceId", message: "must be empty or a Cloudflare id (32 hex digits)" },
      ],
    });
  });

  it("refuses a file that is not an object", () => {
    expect(validateSearchEnvironments([])).toEqual({
      ok: false,
      errors: [{ path: "", message: "must be a JSON object" }],
    });
  });
});
