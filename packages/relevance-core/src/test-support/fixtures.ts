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

export function xgboostCaseNames(): string[] {
  return readdirSync(`${FIXTURES}xgboost`)
    .filter((f) => f.endsWith(".cases.json"))
    .map((f) => f.replace(".cases.json", ""))
    .sort();
}

export function readXgboostCase(name: string): { model: unknown; modelText: string; cases: XgboostCases } {
  const modelText = readFileSync(`${FIXTURES}xgboost/${name}.model.json`, "utf8");
  const cases = JSON.parse(readFileSync(`${FIXTURES}xgboost/${name}.cases.json`, "utf8")) as XgboostCases;
  return { model: JSON.parse(modelText), modelText, cases };
}

export const toRow = (row: (number | null)[]): Float64Array =>
  Float64Array.from(row, (v) => (v === null ? Number.NaN : v));
