// A bench-only Retrieval over Orama (@orama/orama, in memory), the second alternative issue 29
// measures against the embedded engine. Per index, one Orama database built from the store on the
// first search: each searchable attribute a `string` property (an array's elements joined), each
// filterable attribute an `enum` (or `enum[]`) copy (lower case) for filters and facets, each numeric
// filterable or sortable attribute a `number` copy for comparisons and sort. A restart restores the
// file Orama's persistence plugin (@orama/plugin-data-persistence, binary format) wrote at `flush`.
// What it keeps of Meilisearch's behaviour, and what not:
//   - typos: Orama has one `tolerance` per search, not per word: the largest budget of the query's
//     words (1 from 5 letters, 2 from 9), so a short word beside a long one is matched with typos too;
//   - prefix: Orama matches every word as a prefix, not only the last one;
//   - every word required: `threshold: 0` keeps the documents with every word in ONE attribute, and
//     when there are none, answers every document holding any word (Orama's fallback);
//   - synonyms: one Orama search per combination of alternatives (at most 8), merged by score; the
//     total is then the sum of the searches' counts (an estimate); stop words are left out;
//   - ranking: Orama's BM25, attributes boosted by their order; sort on one numeric attribute;
//   - filters: the embedded engine's parser, translated to Orama's `where` (and/or/not, eq/in/nin,
//     containsAll/containsAny, lt/lte/gt/gte); facets and facet search over the enum copies (values
//     in lower case); `_formatted` by the embedded engine's formatter over a vocabulary kept beside.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AnyOrama, create, insertMultiple, search as oramaSearch } from "@orama/orama";
import { persistToFile, restoreFromFile } from "@orama/plugin-data-persistence/server";
import { nfkc, tokenize } from "../../../packages/relevance/core/src/index.ts";
import {
  type FacetSearchQuery,
  type FacetSearchResult,
  RetrievalError,
  type RetrievalResult,
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
  queryWords,
  searchableFields,
  textOf,
  tick,
} from "./common.ts";
import { filterSource } from "./fts5.ts";

/** How the index's properties map to the documents' attributes. */
interface Layout {
  revision: number;
  fields: string[];
  /** Filterable attributes: enum copy `f<i>`, array or not; numeric ones also a number copy `n<i>`. */
  filterable: { name: string; array: boolean; numeric: boolean }[];
  /** Sortable numeric attributes: number copy `o<i>`. */
  sortable: string[];
}

interface Built {
  db: AnyOrama;
  layout: Layout;
  vocabulary: string[];
}

type Where = Record<string, unknown>;
const lower = (v: unknown) => nfkc(String(v)).toLowerCase();
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BATCH = 1000;
const SAMPLE = 1000;

export class OramaRetrieval implements BenchRetrieval {
  private readonly built = new Map<string, Promise<Built>>();

  private readonly documents: SqliteDocumentStore;
  private readonly dir: string;

  constructor(documents: SqliteDocumentStore, dir: string) {
    this.documents = documents;
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  private file(target: SearchTarget): string {
    return join(this.dir, `orama-${`${target.systemAccountId}__${target.index}`.replace(/[^\w-]/g, "_")}`);
  }

  private async index(target: SearchTarget): Promise<Built> {
    const key = `${target.systemAccountId}\u0000${target.index}`;
    const revision = await this.documents.revision(target.systemAccountId, target.index);
    const pending = this.built.get(key);
    if (pending !== undefined) {
      const built = await pending;
      if (built.layout.revision === revision && this.answers(built.layout, target)) return built;
    }
    const next = this.open(target, revision);
    this.built.set(key, next);
    next.catch(() => this.built.delete(key));
    return next;
  }

  private answers(layout: Layout, target: SearchTarget): boolean {
    const list = target.searchableAttributes;
    const fields =
      list.includes("*") || list.length === 0 || JSON.stringify(list) === JSON.stringify(layout.fields);
    return (
      fields &&
      JSON.stringify(target.filterableAttributes) === JSON.stringify(layout.filterable.map((f) => f.name)) &&
      (target.sortableAttributes ?? []).every(
        (s) => layout.sortable.includes(s) || !layout.filterable.some((f) => f.name === s && f.numeric),
      )
    );
  }

  /** The persisted index when it answers the target at this revision, else a build. */
  private async open(target: SearchTarget, revision: number): Promise<Built> {
    const file = this.file(target);
    if (existsSync(`${file}.json`) && existsSync(`${file}.bin`)) {
      const saved = JSON.parse(readFileSync(`${file}.json`, "utf8")) as {
        layout: Layout;
        vocabulary: string[];
      };
      if (saved.layout.revision === revision && this.answers(saved.layout, target)) {
        const db = await restoreFromFile<AnyOrama>("binary", `${file}.bin`);
        return { db, layout: saved.layout, vocabulary: saved.vocabulary };
      }
    }
    return this.build(target, revision);
  }

  private async build(target: SearchTarget, revision: number): Promise<Built> {
    const { systemAccountId: account, index } = target;
    const sample: Record<string, unknown>[] = [];
    const all = target.searchableAttributes.includes("*") || target.searchableAttributes.length === 0;
    for await (const json of this.documents.listJson(
      account,
      index,
      0,
      all ? Number.MAX_SAFE_INTEGER : SAMPLE,
    ))
      sample.push(JSON.parse(json) as Record<string, unknown>);
    const fields = searchableFields(target, sample);
    const filterable = target.filterableAttributes.map((name) => {
      const values = sample.map((d) => fieldOf(d, name)).filter((v) => v !== undefined && v !== null);
      const array = values.some((v) => Array.isArray(v));
      const numeric = values.length > 0 && values.flat().every((v) => typeof v === "number");
      return { name, array, numeric };
    });
    const sortable = (target.sortableAttributes ?? []).filter((name) =>
      sample.some((d) => typeof fieldOf(d, name) === "number"),
    );
    const layout: Layout = { revision, fields, filterable, sortable };
    const schema: Record<string, string> = {};
    fields.forEach((_, i) => {
      schema[`s${i}`] = "string";
    });
    filterable.forEach((f, i) => {
      schema[`f${i}`] = f.array ? "enum[]" : "enum";
      if (f.numeric && !f.array) schema[`n${i}`] = "number";
    });
    sortable.forEach((_, i) => {
      schema[`o${i}`] = "number";
    });
    const db = create({
      schema: schema as never,
      components: { tokenizer: { stemming: false, stopWords: false } },
      sort: { unsortableProperties: Object.keys(schema).filter((p) => !p.startsWith("o")) },
    }) as AnyOrama;
    const vocabulary = new Set<string>();
    let batch: Record<string, unknown>[] = [];
    let n = 0;
    for await (const json of this.documents.listJson(account, index, 0, Number.MAX_SAFE_INTEGER)) {
      const doc = JSON.parse(json) as Record<string, unknown>;
      const row: Record<string, unknown> = { id: String(n++), __doc: json };
      fields.forEach((field, i) => {
        const text = textOf(fieldOf(doc, field));
        row[`s${i}`] = text;
        for (const token of tokenize(text)) vocabulary.add(token);
      });
      filterable.forEach((f, i) => {
        const value = fieldOf(doc, f.name);
        if (value === undefined || value === null) return;
        row[`f${i}`] = f.array
          ? (Array.isArray(value) ? value : [value]).map(lower)
          : lower(Array.isArray(value) ? value[0] : value);
        if (f.numeric && !f.array && typeof value === "number") row[`n${i}`] = value;
      });
      sortable.forEach((name, i) => {
        const value = fieldOf(doc, name);
        if (typeof value === "number") row[`o${i}`] = value;
      });
      batch.push(row);
      if (batch.length === BATCH) {
        await insertMultiple(db, batch as never, BATCH);
        batch = [];
        await tick();
      }
    }
    if (batch.length > 0) await insertMultiple(db, batch as never, BATCH);
    return { db, layout, vocabulary: [...vocabulary] };
  }

  async flush(): Promise<void> {
    for (const [key, pending] of this.built) {
      const built = await pending;
      const [account, index] = key.split("\u0000") as [string, string];
      const file = this.file({ systemAccountId: account, index } as SearchTarget);
      await persistToFile(built.db, "binary", `${file}.bin`);
      writeFileSync(`${file}.json`, JSON.stringify({ layout: built.layout, vocabulary: built.vocabulary }));
    }
  }

  close(): void {
    this.built.clear();
  }

  /** A filter as Orama's `where`. */
  private where(layout: Layout, e: FilterExpression): Where {
    if ("operands" in e) return { [e.kind]: e.operands.map((o) => this.where(layout, o)) };
    const i = layout.filterable.findIndex((f) => f.name === e.attribute);
    const f = layout.filterable[i] as Layout["filterable"][number];
    if (e.kind === "in")
      return { [`f${i}`]: f.array ? { containsAny: e.values.map(lower) } : { in: e.values.map(lower) } };
    const { operator, value } = e;
    if (operator === "=" || operator === "!=") {
      const eq = { [`f${i}`]: f.array ? { containsAll: [lower(value)] } : { eq: lower(value) } };
      return operator === "=" ? eq : { not: eq };
    }
    if (!f.numeric || f.array || !NUMERIC.test(value))
      throw new RetrievalError(
        "invalid_request",
        `Orama (bench) compares only numeric scalar attributes: \`${e.attribute}\``,
        "filter",
      );
    const op = ({ "<": "lt", "<=": "lte", ">": "gt", ">=": "gte" } as Record<string, string>)[
      operator
    ] as string;
    return { [`n${i}`]: { [op]: Number(value) } };
  }

  /** The Orama searches a query stands for (one per combination of synonyms) and their shared parameters. */
  private params(built: Built, target: SearchTarget, query: Pick<SearchQuery, "q" | "filter" | "sort">) {
    const { layout } = built;
    const expression = checkedFilter(filterSource(query.filter), target.filterableAttributes);
    const words = queryWords(target, query.q);
    let terms: string[] = [""];
    for (const w of words) {
      terms = terms.flatMap((t) => w.alternatives.map((a) => (t === "" ? a : `${t} ${a}`))).slice(0, 8);
    }
    const boost: Record<string, number> = {};
    layout.fields.forEach((_, i) => {
      boost[`s${i}`] = layout.fields.length - i;
    });
    // A placeholder search names no properties: with them, Orama scores every document (400 ms
    // at 10,000 products instead of 2 ms).
    const base: Record<string, unknown> =
      words.length === 0
        ? {}
        : {
            properties: layout.fields.map((_, i) => `s${i}`),
            boost,
            tolerance: Math.max(0, ...words.map((w) => w.typos)),
            threshold: 0,
          };
    if (expression !== null) base.where = this.where(layout, expression);
    const [criterion] = query.sort ?? [];
    if (criterion !== undefined) {
      const [attribute, direction] = criterion.split(":") as [string, string | undefined];
      const i = layout.sortable.indexOf(attribute);
      if (!(target.sortableAttributes ?? []).includes(attribute) || i < 0)
        throw new RetrievalError("invalid_request", `Attribute \`${attribute}\` is not sortable.`, "sort");
      base.sortBy = { property: `o${i}`, order: direction === "desc" ? "DESC" : "ASC" };
    }
    return { words, terms, base };
  }

  async search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult> {
    const built = await this.index(target);
    const facets = facetNames(query.facets ?? [], target.filterableAttributes);
    const { words, terms, base } = this.params(built, target, query);
    const facetParams =
      facets.length > 0
        ? Object.fromEntries(facets.map((name) => [`f${target.filterableAttributes.indexOf(name)}`, {}]))
        : undefined;
    type Hit = { id: string; score: number; document: { __doc: string } };
    type Answer = { count: number; hits: Hit[]; facets?: Record<string, { values: Record<string, number> }> };
    const answers: Answer[] = [];
    for (const term of terms) {
      const one = terms.length === 1;
      answers.push(
        (await oramaSearch(built.db, {
          ...base,
          term,
          limit: one ? query.limit : query.offset + query.limit,
          offset: one ? query.offset : 0,
          ...(facetParams === undefined ? {} : { facets: facetParams }),
          ...(query.limit === 0 ? { preflight: true } : {}),
        } as never)) as unknown as Answer,
      );
    }
    let hits = answers.flatMap((a) => a.hits ?? []);
    if (terms.length > 1) {
      const seen = new Set<string>();
      hits = hits
        .sort((a, b) => b.score - a.score)
        .filter((h) => !seen.has(h.id) && seen.add(h.id))
        .slice(query.offset, query.offset + query.limit);
    }
    const format = wantsFormatted(query);
    const highlighted = new Set<string>();
    if (format) for (const w of words) for (const t of expand(w, built.vocabulary)) highlighted.add(t);
    const displayed = target.displayedAttributes;
    const result: RetrievalResult = {
      hits: hits.slice(0, query.limit).map((h) => {
        let doc = JSON.parse(h.document.__doc) as Record<string, unknown>;
        if (displayed !== undefined && !displayed.includes("*")) doc = retrieve(doc, displayed);
        const hit = retrieve(doc, query.attributesToRetrieve);
        if (format) hit._formatted = formatted(retrieve(doc, query.attributesToRetrieve), query, highlighted);
        return hit;
      }),
      estimatedTotalHits: answers.reduce((sum, a) => sum + a.count, 0),
    };
    if (facets.length > 0) {
      result.facetDistribution = {};
      result.facetStats = {};
      for (const name of facets) {
        const counts = this.counts(answers, `f${target.filterableAttributes.indexOf(name)}`);
        result.facetDistribution[name] = distribution(counts);
        const numbers = [...counts.keys()].filter((v) => NUMERIC.test(v)).map(Number);
        if (numbers.length > 0 && numbers.length === counts.size)
          result.facetStats[name] = { min: Math.min(...numbers), max: Math.max(...numbers) };
      }
    }
    return result;
  }

  private counts(
    answers: { facets?: Record<string, { values: Record<string, number> }> }[],
    property: string,
  ) {
    const counts = new Map<string, number>();
    for (const a of answers)
      for (const [value, n] of Object.entries(a.facets?.[property]?.values ?? {}))
        counts.set(value, (counts.get(value) ?? 0) + n);
    return counts;
  }

  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    if (!target.filterableAttributes.includes(query.facetName))
      throw new RetrievalError(
        "invalid_request",
        `Attribute \`${query.facetName}\` is not filterable, so it cannot be searched as a facet.`,
        "facetName",
      );
    const built = await this.index(target);
    const { terms, base } = this.params(built, target, { q: query.q, filter: query.filter });
    const property = `f${target.filterableAttributes.indexOf(query.facetName)}`;
    const answers: { facets?: Record<string, { values: Record<string, number> }> }[] = [];
    for (const term of terms) {
      answers.push(
        (await oramaSearch(built.db, {
          ...base,
          term,
          preflight: true,
          facets: { [property]: {} },
        } as never)) as never,
      );
    }
    return { facetHits: facetHits(this.counts(answers, property), query.facetQuery) };
  }
}

/** The engine entry's factory. */
export const oramaEngine = (documents: SqliteDocumentStore, dir: string): BenchRetrieval =>
  new OramaRetrieval(documents, join(dir, "orama"));
