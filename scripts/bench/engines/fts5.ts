// A bench-only search engine over SQLite FTS5 (node:sqlite), the alternative issue 29 asked to
// measure against the embedded engine: the catalogue's searchable fields in an FTS5 table (unicode61
// tokens, prefix indexes of 2 and 3 characters), the filterable ones in a plain table beside it.
// It keeps what the benchmark's queries need of Meilisearch's behaviour: typo tolerance (each word
// expanded to the index terms within its budget, 1 typo from 5 letters, 2 from 9, read from an
// fts5vocab table), prefix on the last word, every word required (Meilisearch's `all`; `last`'s
// lower tiers are not modelled), BM25 ranking (FTS5's, weighted by field order), the benchmark's
// filters (`price < n`, `category = x`), facets by GROUP BY, sort by price, highlight of the title.
// On disk: a restart is opening the file again.
import { DatabaseSync } from "node:sqlite";
import type { DocumentStore } from "../../../packages/relevance/settings/src/index.ts";
import type { CatalogueQuery, Product } from "../catalogue.ts";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Levenshtein distance of a and b, or budget + 1 once it is beyond `budget`. */
function within(a: string, b: string, budget: number): number {
  if (Math.abs(a.length - b.length) > budget) return budget + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cell = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      current.push(cell);
      least = Math.min(least, cell);
    }
    if (least > budget) return budget + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

const typoBudget = (word: string) => (word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0);
const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;

export interface Fts5Result {
  hits: Record<string, unknown>[];
  estimatedTotalHits: number;
  facetDistribution?: Record<string, Record<string, number>>;
  facetStats?: Record<string, { min: number; max: number }>;
}

export class Fts5Engine {
  private readonly db: DatabaseSync;
  private terms: string[] | undefined;

  constructor(file: string) {
    this.db = new DatabaseSync(file);
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(title, category, tags, description,
      tokenize = 'unicode61', prefix = '2 3');
      CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(docs, 'row');
      CREATE TABLE IF NOT EXISTS attrs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, category TEXT,
        price REAL, tags TEXT, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS attrs_price ON attrs (price);`);
  }

  /** Indexes every document of the store, a thousand per transaction, the event loop given back between them. */
  async build(documents: DocumentStore, account: string, index: string): Promise<void> {
    const insertText = this.db.prepare(
      "INSERT INTO docs (rowid, title, category, tags, description) VALUES (?, ?, ?, ?, ?)",
    );
    const insertAttrs = this.db.prepare(
      "INSERT INTO attrs (rowid, id, category, price, tags, body) VALUES (?, ?, ?, ?, ?, ?)",
    );
    let row = 0;
    this.db.exec("BEGIN");
    for await (const json of documents.listJson(account, index, 0, Number.MAX_SAFE_INTEGER)) {
      const p = JSON.parse(json) as Product;
      row++;
      insertText.run(row, p.title, p.category, p.tags.join(" "), p.description);
      insertAttrs.run(row, p.id, p.category, p.price, JSON.stringify(p.tags), json);
      if (row % 1000 === 0) {
        this.db.exec("COMMIT");
        await tick();
        this.db.exec("BEGIN");
      }
    }
    this.db.exec("COMMIT");
  }

  close(): void {
    this.db.close();
  }

  /** The index terms a query word stands for (itself, its typos; the last word also as a prefix). */
  private group(word: string, last: boolean): string {
    this.terms ??= (this.db.prepare("SELECT term FROM vocab").all() as { term: string }[]).map((r) => r.term);
    const budget = typoBudget(word);
    const alternatives = new Set([quote(word)]);
    if (budget > 0) {
      for (const term of this.terms) if (within(word, term, budget) <= budget) alternatives.add(quote(term));
    }
    if (last) alternatives.add(`${quote(word)}*`);
    return `(${[...alternatives].join(" OR ")})`;
  }

  search(query: CatalogueQuery): Fts5Result {
    const where: string[] = [];
    const params: (string | number)[] = [];
    for (const match of (query.filter ?? "").matchAll(/(\w+)\s*(<|>|=)\s*(\w+)/g)) {
      const [, attribute, operator, value] = match as unknown as [string, string, string, string];
      if (attribute !== "price" && attribute !== "category") throw new Error(`filter on ${attribute}`);
      where.push(`a.${attribute} ${operator} ?`);
      params.push(attribute === "price" ? Number(value) : value);
    }
    const words = query.q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const matching = words.length > 0;
    if (matching) {
      where.push("docs MATCH ?");
      params.push(words.map((w, i) => this.group(w, i === words.length - 1)).join(" AND "));
    }
    const from = matching ? "docs JOIN attrs a ON a.rowid = docs.rowid" : "attrs a";
    const condition = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const order =
      query.sort?.[0] === "price:asc"
        ? "ORDER BY a.price, a.rowid"
        : matching
          ? "ORDER BY bm25(docs, 4.0, 3.0, 2.0, 1.0)"
          : "ORDER BY a.rowid";
    const title = matching ? "highlight(docs, 0, '<em>', '</em>')" : "NULL";
    const rows = this.db
      .prepare(`SELECT a.body AS body, ${title} AS title FROM ${from} ${condition} ${order} LIMIT ?`)
      .all(...params, query.limit) as { body: string; title: string | null }[];
    const total = this.db.prepare(`SELECT count(*) AS n FROM ${from} ${condition}`).get(...params) as {
      n: number;
    };
    const result: Fts5Result = {
      hits: rows.map((r) => {
        const hit = JSON.parse(r.body) as Record<string, unknown>;
        if (r.title !== null) hit._formatted = { ...hit, title: r.title };
        return hit;
      }),
      estimatedTotalHits: total.n,
    };
    if (query.facets !== undefined) {
      result.facetDistribution = {};
      result.facetStats = {};
      for (const facet of query.facets) {
        if (facet === "price") {
          const stats = this.db
            .prepare(`SELECT min(a.price) AS min, max(a.price) AS max FROM ${from} ${condition}`)
            .get(...params) as { min: number; max: number };
          result.facetStats.price = { min: stats.min, max: stats.max };
        }
        const counts = this.db
          .prepare(
            `SELECT a.${facet} AS value, count(*) AS n FROM ${from} ${condition} GROUP BY a.${facet} ORDER BY a.${facet} LIMIT 100`,
          )
          .all(...params) as { value: string | number; n: number }[];
        result.facetDistribution[facet] = Object.fromEntries(counts.map((c) => [String(c.value), c.n]));
      }
    }
    return result;
  }
}
