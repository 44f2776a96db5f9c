// Test-only helpers that read the committed fixtures (node:fs is fine here: tests run in Node).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));

export interface XgboostCases {
  xgboost_version: string;
  case: string;
  description: string;
  params: Record<string, unknown>;
  feature_names: string[];
  rows: (number | null)[][];
  predictions: number[];
  margins: number[];
  threshold_rows: number[];
}

/** `sub`: "" for the 1.7.4 fixtures, "v1/" (1.7.4 dart) or "v3/" (3.x) for make_fixtures_3x.py's. */
export function xgboostCaseNames(sub = ""): string[] {
  return readdirSync(`${FIXTURES}xgboost/${sub}`)
    .filter((f) => f.endsWith(".cases.json"))
    .map((f) => f.replace(".cases.json", ""))
    .sort();
}

export function readXgboostCase(
  name: string,
  sub = "",
): { model: unknown; modelText: string; cases: XgboostCases } {
  const modelText = readFileSync(`${FIXTURES}xgboost/${sub}${name}.model.json`, "utf8");
  const cases = JSON.parse(
    readFileSync(`${FIXTURES}xgboost/${sub}${name}.cases.json`, "utf8"),
  ) as XgboostCases;
  return { model: JSON.parse(modelText), modelText, cases };
}

export const toRow = (row: (number | null)[]): Float64Array =>
  Float64Array.from(row, (v) => (v === null ? Number.NaN : v));

/** A model make_fixtures_3x.py trained to be refused (no cases file). */
export function readXgboostModel(name: string, sub: string): unknown {
  return JSON.parse(readFileSync(`${FIXTURES}xgboost/${sub}${name}.model.json`, "utf8"));
}
