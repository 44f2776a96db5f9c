// A bench-only Retrieval over SQLite FTS5 (node:sqlite), one of the alternatives issue 29 measures
// against the embedded engine. Per index, a file in `dir` (a restart opens it again):
//   - `docs`: an FTS5 table of the searchable attributes (unicode61 tokens without diacritics,
//     prefix indexes of 2 and 3 characters), with an fts5vocab table over it;
//   - `attrs`: the document's JSON and a column per filterable or sortable attribute (its scalar
//     value, indexed; an array's elements as JSON beside it).
// What it keeps of Meilisearch's behaviour: every query word required (`last`: when none match all
// words, the last words are dropped until some match; Meilisearch would also list the partial
// matches after the full ones), the last word also a prefix (FTS5 prefix queries), typos (each word
// expanded to the index terms within its budget, 1 typo from 5 letters and 2 from 9, read from
// fts5vocab), synonyms and stop words, BM25 ranking weighted by attribute order (not Meilisearch's
// words/typo/proximity/attribute/exactness tiers; a sort comes before relevance, not after
// attribute), filters (parsed by the embedded engine's parser, translated to SQL), facets and facet
// search by GROUP BY, sort on sortable attributes, `_formatted` highlight with the embedded engine's
// formatter. The index is rebuilt whole when the store's revision moves (no incremental update).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  type FacetSearchQuery,
  type FacetSearchResult,
  RetrievalError,
  type RetrievalResult,
  type SearchFilter,
  type SearchQuery,
  type SearchTarget,
} from "../../../packages/relevance/search/src/index.ts";
import {
  checkedFilter,
  type FilterExpression,
} from "../../../packages/relevance/search-embedded/src/filter.ts";
import {
  formatted,
  retrieve,
  wantsFormatted,
} from "../../../packages/relevance/search-embedded/src/highlight.ts";
import type { SqliteDocumentStore } from "../../../packages/relevance/settings/src/sqlite/index.ts";
import {
  type BenchRetrieval,
  distribution,
  expand,
  facetHits,
  facetNames,
  fieldOf,
  type QueryWord,
  queryWords,
  searchableFields,
  textOf,
  tick,
  within,
} from "./common.ts";

/** What a built index file holds, to tell whether it still answers a target. */
interface Meta {
  revision: number;
  fields: string[];
  /** Filterable and sortable attributes, each with whether some document holds an array there. */
  attributes: { name: string; array: boolean }[];
  count: number;
}

interface Built {
  db: DatabaseSync;
  meta: Meta;
  terms?: string[];
}

const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;

/** A filter given as Meilisearch's array form (AND of ORs) as one expression string. */
export function filterSource(filter: SearchFilter | undefined): string | undefined {
  if (filter === undefined || typeof filter === "string") return filter;
  return filter
    .map((part) => (typeof part === "string" ? `(${part})` : `(${part.map((p) => `(${p})`).join(" OR ")})`))
    .join(" AND ");
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A value as the attrs table holds it: numbers as numbers, booleans and strings as text. */
function cell(value: unknown): string | number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  return null;
}

export class Fts5Retrieval implements BenchRetrieval {
  private readonly built = new Map<string, Promise<Built>>();

  private readonly documents: SqliteDocumentStore;
  private readonly dir: string;

  constructor(documents: SqliteDocumentStore, dir: string) {
    this.documents = documents;
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  close(): void {
    for (const pending of this.built.values()) void pending.then((b) => b.db.close());
    this.built.clear();
  }

  /** The index's file, built (again) when it does not answer `target` at the store's revision. */
  private async index(target: SearchTarget): Promise<Built> {
    const key = `${target.systemAccountId}\u0000${target.index}`;
    const revision = await this.documents.revision(target.systemAccountId, target.index);
    const attributes = [...new Set([...target.filterableAttributes, ...(target.sortableAttributes ?? [])])];
    const pending = this.built.get(key);
    if (pending !== undefined) {
      const built = await pending;
      if (built.meta.revision === revision && this.answers(built.meta, target, attributes)) return built;
      built.db.close();
    }
    const next = this.open(target, revision, attributes);
    this.built.set(key, next);
    return next;
  }

  private answers(meta: Meta, target: SearchTarget, attributes: string[]): boolean {
    const list = target.searchableAttributes;
    const fieldsMatch =
      list.includes("*") || list.length === 0 || JSON.stringify(list) === JSON.stringify(meta.fields);
    return fieldsMatch && JSON.stringify(attributes) === JSON.stringify(meta.attributes.map((a) => a.name));
  }

  private async open(target: SearchTarget, revision: number, attributes: string[]): Promise<Built> {
    const name = `${target.systemAccountId}__${target.index}`.replace(/[^\w-]/g, "_");
    const db = new DatabaseSync(join(this.dir, `fts5-${name}.db`));
    db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; CREATE TABLE IF NOT EXISTS meta (json TEXT)",
    );
    const row = db.prepare("SELECT json FROM meta").get() as { json: string } | undefined;
    const meta = row === undefined ? undefined : (JSON.parse(row.json) as Meta);
    if (meta !== undefined && meta.revision === revision && this.answers(meta, target, attributes))
      return { db, meta };
    return { db, meta: await this.build(db, target, revision, attributes) };
  }

  /** Indexes every document of the store, a thousand per transaction, the event loop given back between them. */
  private async build(
    db: DatabaseSync,
    target: SearchTarget,
    revision: number,
    attributes: string[],
  ): Promise<Meta> {
    const { systemAccountId: account, index } = target;
    const list = target.searchableAttributes;
    let fields: string[];
    if (list.length > 0 && !list.includes("*")) fields = [...list];
    else {
      const sample: Record<string, unknown>[] = [];
      for await (const json of this.documents.listJson(account, index, 0, Number.MAX_SAFE_INTEGER))
        sample.push(JSON.parse(json) as Record<string, unknown>);
      fields = searchableFields(target, sample);
    }
    const columns = fields.length === 0 ? ["c0"] : fields.map((_, i) => `c${i}`);
    db.exec(`DROP TABLE IF EXISTS vocab; DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS attrs; DELETE FROM meta;
      CREATE VIRTUAL TABLE docs USING fts5(${columns.join(", ")}, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
      CREATE VIRTUAL TABLE vocab USING fts5vocab(docs, 'row');
      CREATE TABLE attrs (rowid INTEGER PRIMARY KEY, body TEXT NOT NULL${attributes.map((_, i) => `, a${i}, j${i}`).join("")});
      ${attributes.map((_, i) => `CREATE INDEX attrs_a${i} ON attrs (a${i});`).join("\n")}`);
    const insertText = db.prepare(
      `INSERT INTO docs (rowid, ${columns.join(", ")}) VALUES (?${", ?".repeat(columns.length)})`,
    );
    const insertAttrs = db.prepare(
      `INSERT INTO attrs (rowid, body${attributes.map((_, i) => `, a${i}, j${i}`).join("")}) VALUES (?, ?${", ?, ?".repeat(attributes.length)})`,
    );
    const arrays = attributes.map(() => false);
    let rowid = 0;
    db.exec("BEGIN");
    for await (const json of this.documents.listJson(account, index, 0, Number.MAX_SAFE_INTEGER)) {
      const doc = JSON.parse(json) as Record<string, unknown>;
      rowid++;
      insertText.run(rowid, ...(fields.length === 0 ? [""] : fields.map((f) => textOf(fieldOf(doc, f)))));
      const values: (string | number | null)[] = [];
      attributes.forEach((attribute, i) => {
        const value = fieldOf(doc, attribute);
        if (Array.isArray(value)) {
          arrays[i] = true;
          values.push(null, JSON.stringify(value.map(cell).filter((v) => v !== null)));
        } else values.push(cell(value), null);
      });
      insertAttrs.run(rowid, json, ...values);
      if (rowid % 1000 === 0) {
        db.exec("COMMIT");
        await tick();
        db.exec("BEGIN");
      }
    }
    const meta: Meta = {
      revision,
      fields,
      attributes: attributes.map((name, i) => ({ name, array: arrays[i] as boolean })),
      count: rowid,
    };
    db.prepare("INSERT INTO meta (json) VALUES (?)").run(JSON.stringify(meta));
    db.exec("COMMIT");
    return meta;
  }

  /** The FTS5 MATCH expression of the words: each an OR group of its terms, the groups ANDed. */
  private match(built: Built, words: QueryWord[]): string {
    return words
      .map((w) => {
        const alternatives = new Set(w.alternatives.map(quote));
        if (w.typos > 0) {
          built.terms ??= (built.db.prepare("SELECT term FROM vocab").all() as { term: string }[]).map(
            (r) => r.term,
          );
          for (const term of built.terms)
            if (within(w.word, term, w.typos) <= w.typos) alternatives.add(quote(term));
        }
        if (w.prefix) alternatives.add(`${quote(w.word)}*`);
        return `(${[...alternatives].join(" OR ")})`;
      })
      .join(" AND ");
  }

  /** The SQL condition of a filter expression, its parameters pushed to `params`. */
  private condition(meta: Meta, e: FilterExpression, params: (string | number)[]): string {
    if ("operands" in e) {
      return `(${e.operands.map((o) => this.condition(meta, o, params)).join(` ${e.kind.toUpperCase()} `)})`;
    }
    const i = meta.attributes.findIndex((a) => a.name === e.attribute);
    const array = meta.attributes[i]?.array === true;
    const test = (column: string, operator: string, value: string): string => {
      const numeric = NUMERIC.test(value);
      if (operator === "=" || operator === "!=") {
        params.push(value);
        const text = `${column} = ? COLLATE NOCASE`;
        const either = numeric ? `(${text} OR ${column} = ?)` : text;
        if (numeric) params.push(Number(value));
        return operator === "=" ? either : `NOT ${either}`;
      }
      params.push(numeric ? Number(value) : value);
      return `${column} ${operator} ?`;
    };
    const one = (operator: string, value: string): string => {
      const scalar = test(`a.a${i}`, operator, value);
      if (!array || operator === "!=") return scalar;
      return `(${scalar} OR EXISTS (SELECT 1 FROM json_each(a.j${i}) WHERE ${test("value", operator, value)}))`;
    };
    if (e.kind === "in") return `(${e.values.map((v) => one("=", v)).join(" OR ")})`;
    return one(e.operator, e.value);
  }

  /** The documents a query selects: the SQL to read them with and their count. */
  private async selection(
    target: SearchTarget,
    query: Pick<SearchQuery, "q" | "filter" | "matchingStrategy">,
  ) {
    const built = await this.index(target);
    const { db, meta } = built;
    const expression = checkedFilter(filterSource(query.filter), target.filterableAttributes);
    let words = queryWords(target, query.q);
    const base: string[] = [];
    const baseParams: (string | number)[] = [];
    if (expression !== null) base.push(this.condition(meta, expression, baseParams));
    const fromOf = (matching: boolean) =>
      matching ? "docs JOIN attrs a ON a.rowid = docs.rowid" : "attrs a";
    const whereOf = (matching: boolean) => {
      const all = matching ? ["docs MATCH ?", ...base] : base;
      return all.length > 0 ? `WHERE ${all.join(" AND ")}` : "";
    };
    let match = words.length > 0 ? this.match(built, words) : "";
    const paramsOf = (matching: boolean) => (matching ? [match, ...baseParams] : baseParams);
    const countOf = (matching: boolean): number =>
      !matching && base.length === 0
        ? meta.count
        : (
            db
              .prepare(`SELECT count(*) AS n FROM ${fromOf(matching)} ${whereOf(matching)}`)
              .get(...paramsOf(matching)) as { n: number }
          ).n;
    let total = countOf(words.length > 0);
    // Meilisearch's `last`: fewer words (the last ones dropped) when none match them all.
    while (total === 0 && words.length > 1 && query.matchingStrategy !== "all") {
      words = words.slice(0, -1);
      match = this.match(built, words);
      total = countOf(true);
    }
    const matching = words.length > 0;
    return {
      built,
      words,
      matching,
      total,
      from: fromOf(matching),
      where: whereOf(matching),
      params: paramsOf(matching),
    };
  }

  async search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult> {
    const facets = facetNames(query.facets ?? [], target.filterableAttributes);
    const { built, words, matching, total, from, where, params } = await this.selection(target, query);
    const { db, meta } = built;
    const order: string[] = [];
    for (const criterion of query.sort ?? []) {
      const [attribute, direction] = criterion.split(":") as [string, string | undefined];
      const i = meta.attributes.findIndex((a) => a.name === attribute);
      if (!(target.sortableAttributes ?? []).includes(attribute) || i < 0)
        throw new RetrievalError("invalid_request", `Attribute \`${attribute}\` is not sortable.`, "sort");
      order.push(`a.a${i} IS NULL, a.a${i} ${direction === "desc" ? "DESC" : "ASC"}`);
    }
    const weights = meta.fields.map((_, i) => (meta.fields.length - i).toFixed(1)).join(", ");
    const rank = matching && meta.fields.length > 0 ? `bm25(docs, ${weights})` : "a.rowid";
    const rows =
      query.limit > 0 && total > 0
        ? (db
            .prepare(
              `SELECT a.body AS body FROM ${from} ${where} ORDER BY ${[...order, rank, "a.rowid"].join(", ")} LIMIT ? OFFSET ?`,
            )
            .all(...params, query.limit, query.offset) as { body: string }[])
        : [];
    const displayed = target.displayedAttributes;
    const format = wantsFormatted(query);
    const terms = new Set<string>();
    if (format && matching) {
      built.terms ??= (db.prepare("SELECT term FROM vocab").all() as { term: string }[]).map((r) => r.term);
      for (const w of words) for (const t of expand(w, built.terms)) terms.add(t);
    }
    const result: RetrievalResult = {
      hits: rows.map((r) => {
        let doc = JSON.parse(r.body) as Record<string, unknown>;
        if (displayed !== undefined && !displayed.includes("*")) doc = retrieve(doc, displayed);
        const hit = retrieve(doc, query.attributesToRetrieve);
        if (format) hit._formatted = formatted(retrieve(doc, query.attributesToRetrieve), query, terms);
        return hit;
      }),
      estimatedTotalHits: total,
    };
    if (facets.length > 0) {
      result.facetDistribution = {};
      result.facetStats = {};
      for (const facet of facets) {
        const counts = this.counts(built, facet, from, where, params);
        result.facetDistribution[facet] = distribution(counts);
        const numbers = [...counts.keys()].filter((v) => NUMERIC.test(v)).map(Number);
        if (numbers.length > 0 && numbers.length === counts.size)
          result.facetStats[facet] = { min: Math.min(...numbers), max: Math.max(...numbers) };
      }
    }
    return result;
  }

  /** Value → documents holding it, over the documents the query selects. */
  private counts(
    built: Built,
    facet: string,
    from: string,
    where: string,
    params: (string | number)[],
  ): Map<string, number> {
    const i = built.meta.attributes.findIndex((a) => a.name === facet);
    const counts = new Map<string, number>();
    const add = (rows: { v: string | number | null; n: number }[]) => {
      for (const r of rows) if (r.v !== null) counts.set(String(r.v), (counts.get(String(r.v)) ?? 0) + r.n);
    };
    add(
      built.db
        .prepare(`SELECT a.a${i} AS v, count(*) AS n FROM ${from} ${where} GROUP BY a.a${i}`)
        .all(...params) as never,
    );
    if (built.meta.attributes[i]?.array === true) {
      add(
        built.db
          .prepare(
            `SELECT j.value AS v, count(DISTINCT a.rowid) AS n FROM ${from}, json_each(a.j${i}) j ${where} GROUP BY j.value`,
          )
          .all(...params) as never,
      );
    }
    return counts;
  }

  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    if (!target.filterableAttributes.includes(query.facetName))
      throw new RetrievalError(
        "invalid_request",
        `Attribute \`${query.facetName}\` is not filterable, so it cannot be searched as a facet.`,
        "facetName",
      );
    const { built, from, where, params } = await this.selection(target, query);
    const counts = this.counts(built, query.facetName, from, where, params);
    return { facetHits: facetHits(counts, query.facetQuery) };
  }
}

/** The engine entry's factory. */
export const fts5Engine = (documents: SqliteDocumentStore, dir: string): BenchRetrieval =>
  new Fts5Retrieval(documents, join(dir, "fts5"));
