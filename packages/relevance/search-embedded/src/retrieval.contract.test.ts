// The Retrieval contract over the embedded engine: documents in SQLite, settings from the target
// (the search app passes the index's settings copy there).
import type { SearchTarget } from "@relevance/search";
import { retrievalContract } from "@relevance/search/contract";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { EmbeddedRetrieval } from "./engine.ts";

const ACCOUNT = "acct_contract";

retrievalContract("embedded engine on SQLite", async (name, index) => {
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert(ACCOUNT, name, "id", index.documents);
  const target: SearchTarget = {
    systemAccountId: ACCOUNT,
    index: name,
    primaryKey: "id",
    searchableAttributes: ["*"],
    filterableAttributes: index.filterableAttributes ?? [],
    synonyms: index.synonyms ?? {},
    stopWords: index.stopWords ?? [],
  };
  return { retrieval: new EmbeddedRetrieval({ documents }), target };
});
