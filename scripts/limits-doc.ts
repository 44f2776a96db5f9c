// `npm run docs:limits`: rewrites the table of docs/limits.md from the limits.ts files of every
// package (the numbers the code enforces). packages/testing/hostile/src/limits-doc.test.ts fails when they differ.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withLimitsTable } from "../packages/testing/hostile/src/all-limits.ts";

const doc = fileURLToPath(new URL("../docs/limits.md", import.meta.url));
writeFileSync(doc, withLimitsTable(readFileSync(doc, "utf8")));
console.log(`updated ${doc}`);
