// The engines of the catalogue series (search-catalogue.ts), side by side on the same documents and
// queries, each through the Retrieval port. To measure another engine, add an entry here: a name and
// a loader answering its factory `(documents, dir) => Retrieval` (a new instance over the same `dir`
// is the restart), or null when it cannot run in this checkout. BENCH_CATALOGUE_ENGINES (a comma list
// of names, or parts of names) picks a few.
import { join } from "node:path";
import { openDatabase } from "../../../packages/relevance/settings/src/sqlite/index.ts";
import type { EngineFactory } from "./common.ts";
import { fts5Engine } from "./fts5.ts";
import { oramaEngine } from "./orama.ts";

type EmbeddedModule = typeof import("../../../packages/relevance/search-embedded/src/index.ts");

export interface EngineEntry {
  name: string;
  /** The factory; null when the engine cannot run here (a note says why). */
  load: () => Promise<EngineFactory | null>;
}

/** The embedded engine of the package at `root` (this checkout, or an older commit's worktree). */
async function embedded(root: string): Promise<EngineFactory> {
  const embeddedModule = (await import(
    join(root, "packages/relevance/search-embedded/src/index.ts")
  )) as Partial<EmbeddedModule> & Pick<EmbeddedModule, "EmbeddedRetrieval" | "SqliteIndexSnapshotStore">;
  const { EmbeddedRetrieval, FileIndexSnapshotStore, SqliteIndexSnapshotStore } = embeddedModule;
  // The snapshots where npm start of that commit keeps them: files now, SQLite before.
  return (documents, dir) =>
    new EmbeddedRetrieval({
      documents,
      store:
        FileIndexSnapshotStore === undefined
          ? new SqliteIndexSnapshotStore(openDatabase(join(dir, "snapshots.db")))
          : new FileIndexSnapshotStore(join(dir, "search-index")),
    });
}

/**
 * The entries, in the order of the table's columns. `root` is this checkout; `before` the worktree of
 * the commit before issue 29's engine (the MiniSearch index), or null when the history lacks it.
 */
export function engineEntries(root: string, before: { commit: string; dir: string | null }): EngineEntry[] {
  return [
    { name: "typed postings (now)", load: () => embedded(root) },
    {
      name: `MiniSearch (before, ${before.commit})`,
      load: async () => (before.dir === null ? null : embedded(before.dir)),
    },
    { name: "SQLite FTS5", load: async () => fts5Engine },
    { name: "Orama", load: async () => oramaEngine },
  ];
}

/** The entries BENCH_CATALOGUE_ENGINES names (all when unset). */
export function pickedEntries(
  entries: EngineEntry[],
  picked = process.env.BENCH_CATALOGUE_ENGINES,
): EngineEntry[] {
  if (picked === undefined || picked.trim() === "") return entries;
  const parts = picked.split(",").map((p) => p.trim().toLowerCase());
  return entries.filter((e) => parts.some((p) => p !== "" && e.name.toLowerCase().includes(p)));
}
