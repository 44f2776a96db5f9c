// `attributesToRetrieve`, `attributesToHighlight` and `attributesToCrop` for the embedded engine:
// the `_formatted` copy of a hit, with the words that matched the query (the index terms the query
// words expanded into, compared as the engine's tokenizer sees them) wrapped in tags and long text
// cropped around the first match. Linear in the text of the hit.

import { tokenize } from "@relevance/core";
import type { SearchQuery } from "@relevance/search";

const WORD = /[\p{L}\p{Nd}\p{M}]+/gu;
export const DEFAULT_HIGHLIGHT_PRE_TAG = "<em>";
export const DEFAULT_HIGHLIGHT_POST_TAG = "</em>";
export const DEFAULT_CROP_LENGTH = 10;
export const DEFAULT_CROP_MARKER = "…";

/** Only the attributes asked for (`*`: all); the document itself when the list is absent. */
export function retrieve(
  doc: Record<string, unknown>,
  attributes: readonly string[] | undefined,
): Record<string, unknown> {
  if (attributes === undefined || attributes.includes("*")) return { ...doc };
  const out: Record<string, unknown> = {};
  for (const name of attributes) if (Object.hasOwn(doc, name)) out[name] = doc[name];
  return out;
}

interface Run {
  start: number;
  end: number;
  matched: boolean;
}

function runsOf(text: string, terms: ReadonlySet<string>): Run[] {
  const runs: Run[] = [];
  for (const m of text.matchAll(WORD)) {
    const start = m.index;
    const end = start + m[0].length;
    runs.push({ start, end, matched: terms.size > 0 && tokenize(m[0]).some((t) => terms.has(t)) });
  }
  return runs;
}

interface Formatting {
  highlight: boolean;
  crop: boolean;
  pre: string;
  post: string;
  cropLength: number;
  marker: string;
}

function formatText(text: string, terms: ReadonlySet<string>, f: Formatting): string {
  const runs = runsOf(text, terms);
  let from = 0;
  let to = runs.length;
  if (f.crop && runs.length > f.cropLength) {
    const first = runs.findIndex((r) => r.matched);
    const center = Math.max(first, 0);
    from = Math.max(0, Math.min(center - Math.floor((f.cropLength - 1) / 2), runs.length - f.cropLength));
    to = from + f.cropLength;
  }
  const startAt = f.crop && from > 0 ? (runs[from] as Run).start : 0;
  const endAt = f.crop && to < runs.length ? (runs[to - 1] as Run).end : text.length;
  let out = f.crop && from > 0 ? f.marker : "";
  let at = startAt;
  for (let i = from; i < to; i++) {
    const run = runs[i] as Run;
    if (!(f.highlight && run.matched)) continue;
    out += `${text.slice(at, run.start)}${f.pre}${text.slice(run.start, run.end)}${f.post}`;
    at = run.end;
  }
  out += text.slice(at, endAt);
  if (f.crop && to < runs.length) out += f.marker;
  return out;
}

function formatValue(value: unknown, terms: ReadonlySet<string>, f: Formatting): unknown {
  if (typeof value === "string") return formatText(value, terms, f);
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map((e) => formatValue(e, terms, f));
  return value;
}

const listed = (list: readonly string[] | undefined, name: string): boolean =>
  list !== undefined && (list.includes("*") || list.includes(name));

/** Whether a query asks for `_formatted`. */
export const wantsFormatted = (query: SearchQuery): boolean =>
  (query.attributesToHighlight?.length ?? 0) > 0 || (query.attributesToCrop?.length ?? 0) > 0;

/**
 * `_formatted` of a retrieved hit: every attribute of it, those in attributesToHighlight with the
 * matched words between the tags, those in attributesToCrop cut to `cropLength` words around the
 * first match (attribute-level `name:length` is not supported).
 */
export function formatted(
  hit: Record<string, unknown>,
  query: SearchQuery,
  terms: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(hit)) {
    const highlight = listed(query.attributesToHighlight, name);
    const crop = listed(query.attributesToCrop, name);
    out[name] =
      highlight || crop
        ? formatValue(value, terms, {
            highlight,
            crop,
            pre: query.highlightPreTag ?? DEFAULT_HIGHLIGHT_PRE_TAG,
            post: query.highlightPostTag ?? DEFAULT_HIGHLIGHT_POST_TAG,
            cropLength: query.cropLength ?? DEFAULT_CROP_LENGTH,
            marker: query.cropMarker ?? DEFAULT_CROP_MARKER,
          })
        : value;
  }
  return out;
}
