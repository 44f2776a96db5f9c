// The Meilisearch double's filters and sort on the indexes created through it, written from
// Meilisearch's filter reference (https://www.meilisearch.com/docs/learn/filtering_and_sorting):
// enough of it for what front ends send (InstantSearch's refinements are arrays of `attr = "value"`
// conditions, OR inside an inner array, AND between them; a string may join conditions with AND).
// A filter the double does not evaluate is refused, never ignored.

type Doc = Record<string, unknown>;

/** A document filter, or the reason the double cannot evaluate the filter (answered 400). */
export type DoubleFilter = { ok: true; test: (doc: Doc) => boolean } | { ok: false; message: string };

// An attribute may be quoted, as instant-meilisearch writes it: `"category"="Home"`.
const CONDITION =
  /^\s*(?:"([A-Za-z0-9_.-]+)"|([A-Za-z0-9_.-]+))\s*(=|!=|>=|<=|>|<)\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s"']+))\s*$/;

function condition(text: string, filterable: readonly string[]): DoubleFilter {
  const m = CONDITION.exec(text);
  if (m === null) return { ok: false, message: `the Meilisearch double does not evaluate \`${text}\`` };
  const [, quotedAttribute, bareAttribute, op, quoted, single, bare] = m;
  const attribute = quotedAttribute ?? bareAttribute ?? "";
  if (!filterable.includes(attribute))
    return {
      ok: false,
      message: `Attribute \`${attribute}\` is not filterable. Available filterable attributes are: \`${filterable.join(", ")}\`.`,
    };
  const value = quoted ?? single ?? bare ?? "";
  const number = Number(value);
  const compare = (v: unknown): boolean => {
    if (op === "=" || op === "!=") {
      const equal = String(v).toLowerCase() === value.toLowerCase();
      return op === "=" ? equal : !equal;
    }
    const n = typeof v === "number" ? v : Number(v);
    if (!Number.isFinite(n) || !Number.isFinite(number)) return false;
    return op === ">" ? n > number : op === ">=" ? n >= number : op === "<" ? n < number : n <= number;
  };
  return {
    ok: true,
    test: (doc) => {
      const v = doc[attribute];
      if (op === "!=") return (Array.isArray(v) ? v : [v]).every(compare);
      return (Array.isArray(v) ? v : [v]).some(compare);
    },
  };
}

/** `a AND b` of a string filter (no OR, NOT, TO or parentheses in a string: those are refused). */
function expression(text: string, filterable: readonly string[]): DoubleFilter {
  if (/\b(OR|NOT|TO|IN|EXISTS|IS)\b|[()[\]]/.test(text))
    return { ok: false, message: `the Meilisearch double does not evaluate \`${text}\`` };
  const parts = text.split(/\s+AND\s+/).map((part) => condition(part, filterable));
  const failed = parts.find((p) => !p.ok);
  if (failed !== undefined) return failed;
  const tests = parts.map((p) => (p as { test: (doc: Doc) => boolean }).test);
  return { ok: true, test: (doc) => tests.every((t) => t(doc)) };
}

/** A search's `filter` (string, or array: AND of its items, an inner array an OR). */
export function doubleFilter(filter: unknown, filterable: readonly string[]): DoubleFilter {
  if (filter === undefined || filter === null) return { ok: true, test: () => true };
  if (typeof filter === "string")
    return filter.trim() === "" ? { ok: true, test: () => true } : expression(filter, filterable);
  if (!Array.isArray(filter)) return { ok: false, message: "`filter` must be a string or an array" };
  const clauses: ((doc: Doc) => boolean)[] = [];
  for (const item of filter) {
    const alternatives = Array.isArray(item) ? item : [item];
    const parsed = alternatives.map((a) =>
      typeof a === "string" ? expression(a, filterable) : doubleFilter(a, filterable),
    );
    const failed = parsed.find((p) => !p.ok);
    if (failed !== undefined) return failed;
    const tests = parsed.map((p) => (p as { test: (doc: Doc) => boolean }).test);
    clauses.push((doc) => tests.some((t) => t(doc)));
  }
  return { ok: true, test: (doc) => clauses.every((t) => t(doc)) };
}

/** Sorts in place by `attr:asc|desc` criteria on sortable attributes; the problem otherwise. */
export function doubleSort(docs: Doc[], sort: unknown, sortable: readonly string[]): string | null {
  if (sort === undefined || sort === null) return null;
  if (!Array.isArray(sort)) return "`sort` must be an array";
  const criteria: { attribute: string; sign: number }[] = [];
  for (const criterion of sort) {
    const [attribute = "", order] = String(criterion).split(":");
    if (!sortable.includes(attribute))
      return `Attribute \`${attribute}\` is not sortable. Available sortable attributes are: \`${sortable.join(", ")}\`.`;
    if (order !== "asc" && order !== "desc") return `Invalid sort criterion \`${String(criterion)}\``;
    criteria.push({ attribute, sign: order === "asc" ? 1 : -1 });
  }
  docs.sort((x, y) => {
    for (const { attribute, sign } of criteria) {
      const a = x[attribute];
      const b = y[attribute];
      const d =
        typeof a === "number" && typeof b === "number"
          ? a - b
          : String(a ?? "").localeCompare(String(b ?? ""));
      if (d !== 0) return sign * d;
    }
    return 0;
  });
  return null;
}
