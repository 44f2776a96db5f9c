// The Retrieval contract suite (packages/relevance/search/src/contract) over the bench-only engines,
// run by hand, not in CI (named .check.ts, so no test lane picks it up; the alternatives do not
// promise every case, and the count of cases each passes is what docs/benchmarks.md records):
//   node_modules/.bin/node node_modules/.bin/vitest run --config scripts/bench/engines/contract.config.ts
import { mkdtempSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { retrievalContract } from "../../../packages/relevance/search/src/contract/index.ts";
import type { SearchTarget } from "../../../packages/relevance/search/src/index.ts";
import { openDatabase, SqliteDocumentStore } from "../../../packages/relevance/settings/src/sqlite/index.ts";
import type { EngineFactory } from "./common.ts";
import { fts5Engine } from "./fts5.ts";
import { oramaEngine } from "./orama.ts";

const ACCOUNT = "acct_contract";

function contractOver(name: string, factory: EngineFactory): void {
  const dir = mkdtempSync(join(os.tmpdir(), "bench-contract-"));
  retrievalContract(name, async (index, content) => {
    const documents = new SqliteDocumentStore(openDatabase(":memory:"));
    await documents.upsert(ACCOUNT, index, "id", content.documents);
    const target: SearchTarget = {
      systemAccountId: ACCOUNT,
      index,
      primaryKey: "id",
      searchableAttributes: ["*"],
      filterableAttributes: content.filterableAttributes ?? [],
      synonyms: content.synonyms ?? {},
      stopWords: content.stopWords ?? [],
    };
    return { retrieval: factory(documents, dir), target };
  });
}

contractOver("SQLite FTS5 (bench)", fts5Engine);
contractOver("Orama (bench)", oramaEngine);
