/**
 * The test lanes (vitest projects in vitest.config.ts), decided by what a test file starts, so a
 * new test lands in the right lane without a list to keep:
 *   - e2e: it spawns a process (the stack, a CLI, Python), drives a browser or runs the README;
 *   - integration: it opens a real engine or server in its own process (chDB, SQLite on disk,
 *     dynalite, workerd through Miniflare, an HTTP server on a port, a CDK synthesis);
 *   - unit: the rest (pure code and in-memory adapters).
 * A file is judged on its own text and on the text of the files it imports by relative path (its
 * harnesses and test support), one level deep. Pure: the config reads the files and passes them in.
 */

export type Lane = "unit" | "integration" | "e2e";

const E2E = [
  /node:child_process|from "child_process"/,
  /playwright|chromium/i,
  /spawnStack|startLocalStack|@apps\/local\/test-support/,
  /readme/i,
];

const INTEGRATION = [
  /chdb|openTempStore|ClickHouseRunStore|@monitor\/clickhouse\/test-support/i,
  /node:sqlite|Sqlite[A-Z]\w*\(|openSqlite/,
  /dynalite|startDynalite/i,
  /miniflare|unstable_dev|workerd/i,
  /createServer\(|@hono\/node-server|\.listen\(/,
  /aws-cdk-lib|buildApp\(/,
  // The HTTP doubles of AWS, Meilisearch and Cloudflare listen on a port (through their helpers).
  /http-double|HttpDouble|MeilisearchDouble|CloudflareApiDouble/,
];

/** The relative imports of a file, as written (`./x.ts`, `../test-support/y.ts`). */
export function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) found.push(m[1] as string);
  return found;
}

/** The code of a file without its comments: a comment that names chDB starts nothing. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The lane of a test file, from its text and the texts of what it imports by relative path. */
export function laneOf(file: string, text: string, imported: readonly string[]): Lane {
  const texts = [text, ...imported].map(code);
  if (file.endsWith(".browser.test.ts") || texts.some((t) => E2E.some((re) => re.test(t)))) return "e2e";
  if (texts.some((t) => INTEGRATION.some((re) => re.test(t)))) return "integration";
  return "unit";
}
