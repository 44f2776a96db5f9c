// The bounds of one search request, in one place: the constants the code enforces and the rows of
// the limits table (docs/limits.md) are the same numbers. Every bound is checked before the work it
// protects, so no single request can stall, bloat or trick the proxy.
import {
  ARTIFACT_MAX_BYTES_ENV,
  DEFAULT_ARTIFACT_MAX_BYTES,
  MAX_ARTIFACT_BYTES,
  MAX_PROFILE_BINS,
  MAX_PROFILE_ROWS,
} from "@relevance/core";
import { DEFAULT_JSON_BODY_BYTES, DEFAULT_MAX_JSON_DEPTH, type LimitRow } from "@shared/http";

/** Largest request body (bytes). Read before parsing: a larger body is refused with 413. */
export const MAX_BODY_BYTES = DEFAULT_JSON_BODY_BYTES;
/** How deeply the body's JSON may nest. A search body is flat; this only stops abuse (422). */
export const MAX_BODY_DEPTH = DEFAULT_MAX_JSON_DEPTH;

/**
 * Keys of any one object in a search or multi-search body. A search has 18 fields; the bound
 * refuses a body of thousands of keys before it is parsed.
 */
export const MAX_BODY_KEYS = 100;

/**
 * Longest `q`, in UTF-16 code units (JavaScript string length). Human queries are under 100; 1,000
 * still takes a pasted product title or description sentence. It bounds every per-query cost at
 * once: tokenizing (NFKC can expand text at most 18-fold, so at most 18,000 units), the relevance
 * features (linear in the query) and the engine's query words.
 */
export const MAX_QUERY_CHARS = 1000;
/**
 * Query words used for retrieval; later words are ignored, as Meilisearch ignores words after the
 * tenth. Each word may expand into many index terms (typos, prefix), so this bounds the expansion
 * work; the relevance features still see the whole `q`.
 */
export const MAX_QUERY_WORDS = 10;
/**
 * Longest query word that typo tolerance or prefix matching applies to (embedded engine). Typo
 * matching builds a Levenshtein matrix of (length + 3) x (length + 1) bytes per word, so a word of
 * 100 KB would need 10 GB; longer words than this are matched exactly, which costs one lookup.
 * 64 covers long compound words ("Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz").
 */
export const MAX_EXPANDED_WORD_CHARS = 64;
/**
 * Index terms one query word may expand into by typo tolerance or prefix matching (embedded
 * engine): the closest ones are kept (fewest typos, then shortest), so "s" typed into a big
 * catalogue does not score every term that starts with "s".
 */
export const MAX_EXPANSIONS_PER_WORD = 50;
/**
 * Index terms examined to pick a prefix's expansions (embedded engine): a one-letter prefix of a
 * large vocabulary would otherwise walk tens of thousands of terms.
 */
export const MAX_PREFIX_SCAN = 2000;

/** Largest `limit` (hits per response). */
export const MAX_LIMIT = 1000;
/**
 * Largest `offset`. Deep pages cost the backend the whole ranking up to offset + limit and are of
 * no use to a person paging through results; 10,000 is Elasticsearch's `max_result_window` and
 * above Meilisearch's default `maxTotalHits` (1,000), so it never hides hits Meilisearch would give.
 */
export const MAX_OFFSET = 10_000;

/**
 * Longest `filter`, in UTF-16 code units. Enough for an `IN [...]` list of a few hundred ids; the
 * embedded engine evaluates the filter once per candidate document, so its size multiplies that work.
 */
export const MAX_FILTER_CHARS = 4096;
/**
 * Deepest nesting of a `filter`: parentheses plus chains of `NOT`, counted by one linear scan before
 * the filter is parsed or sent to the backend (a recursive parser would otherwise run out of stack).
 */
export const MAX_FILTER_DEPTH = 32;

/** Largest `hitsPerPage` (exhaustive pagination); 0 answers only the totals and facets. */
export const MAX_HITS_PER_PAGE = 1000;
/** Largest `page` (from 1). */
export const MAX_PAGE = 10_000;
/** Most attributes in `facets` (`["*"]` counts as one and stands for the filterable attributes). */
export const MAX_FACETS = 100;
/** Most criteria in `sort`. */
export const MAX_SORT = 10;
/** Distinct values reported per facet (Meilisearch's `maxValuesPerFacet` default), the first in alphabetical order. */
export const MAX_VALUES_PER_FACET = 100;
/** Most attributes in each of `attributesToRetrieve`, `attributesToHighlight` and `attributesToCrop`. */
export const MAX_ATTRIBUTE_LIST = 100;
/** Longest attribute name in `sort`, `facets` and the attribute lists, in UTF-16 code units. */
export const MAX_ATTRIBUTE_CHARS = 256;
/** Longest `highlightPreTag`, `highlightPostTag` and `cropMarker`, in UTF-16 code units. */
export const MAX_TAG_CHARS = 64;
/** Largest `cropLength` (words kept around the matches). */
export const MAX_CROP_LENGTH = 1000;
/** Most expressions in an array `filter`, counting the elements of inner arrays. */
export const MAX_FILTER_ITEMS = 100;
/** Most queries in one `POST /api/v1/multi-search`. */
export const MAX_MULTI_SEARCH_QUERIES = 10;

/**
 * Longest `facetQuery` of a facet search, in UTF-16 code units. Facet values are brand, colour and
 * category names; the query is matched as one word against each distinct value of the facet, so
 * its length multiplies that work (typos apply only up to MAX_EXPANDED_WORD_CHARS).
 */
export const MAX_FACET_QUERY_CHARS = 256;
/**
 * Longest query string of `GET /api/v1/indexes/{index}/search`, in characters as sent (still
 * percent-encoded); checked before it is parsed. Half of Node's 16 KiB for the request line and
 * headers together (beyond which npm start answers 431), and within Cloudflare's URL limit; a
 * search larger than this (a long `IN [...]` filter) is a POST.
 */
export const MAX_QUERY_STRING_CHARS = 8192;
/** Most parameters in that query string (a search has 20 fields). */
export const MAX_QUERY_PARAMS = 100;

/** Failed authentications per client address per minute before 429 (AuthThrottle's default). */
export const AUTH_FAILURES_PER_ADDRESS = 20;
/** Failed authentications per API-key prefix (first 8 characters) per minute before 429. */
export const AUTH_FAILURES_PER_PREFIX = 50;

/** Default bound on what the parsed models in a worker's cache cost (MB = 2^20 bytes). */
export const DEFAULT_MODEL_CACHE_MB = 32;

/** The rows of docs/limits.md for the search proxy (and the model artifacts it loads). */
export const SEARCH_LIMITS: LimitRow[] = [
  {
    area: "search",
    field: "body",
    limit: MAX_BODY_BYTES,
    unit: "bytes",
    status: 413,
    note: "checked from Content-Length before reading, and counted while reading a chunked body",
  },
  {
    area: "search",
    field: "body",
    limit: MAX_BODY_DEPTH,
    unit: "levels",
    status: 422,
    note: "JSON nesting depth; keys named __proto__, constructor or prototype are refused too",
  },
  {
    area: "search",
    field: "body",
    limit: MAX_BODY_KEYS,
    unit: "items",
    status: 422,
    note: "keys of any one object of the body (a search has 20 fields), counted in the text before it is parsed",
  },
  {
    area: "search",
    field: "q",
    limit: MAX_QUERY_CHARS,
    unit: "characters",
    status: 422,
    note: "UTF-16 code units (JavaScript string length)",
  },
  {
    area: "search",
    field: "q",
    limit: MAX_QUERY_WORDS,
    unit: "words",
    status: 0,
    note: "retrieval uses the first 10 words and ignores the rest, as Meilisearch does; relevance features use the whole q",
  },
  {
    area: "search",
    field: "q",
    limit: MAX_EXPANDED_WORD_CHARS,
    unit: "characters",
    status: 0,
    note: "embedded engine: a longer word gets no typo tolerance or prefix matching (matched exactly)",
  },
  {
    area: "search",
    field: "q",
    limit: MAX_EXPANSIONS_PER_WORD,
    unit: "items",
    status: 0,
    note: `embedded engine: index terms one query word expands into by typos or prefix, the closest kept; a prefix examines at most ${MAX_PREFIX_SCAN} terms`,
  },
  {
    area: "search",
    field: "limit",
    limit: MAX_LIMIT,
    unit: "items",
    status: 422,
    note: "from 0 (0 answers totals and facets only, as InstantSearch's refinementList asks)",
  },
  { area: "search", field: "offset", limit: MAX_OFFSET, unit: "items", status: 422, note: "from 0" },
  {
    area: "search",
    field: "filter",
    limit: MAX_FILTER_CHARS,
    unit: "characters",
    status: 422,
    note: "UTF-16 code units",
  },
  {
    area: "search",
    field: "filter",
    limit: MAX_FILTER_DEPTH,
    unit: "levels",
    status: 422,
    note: "nested parentheses plus chained NOT, checked before parsing",
  },
  {
    area: "search",
    field: "filter",
    limit: MAX_FILTER_ITEMS,
    unit: "items",
    status: 422,
    note: "expressions in an array filter (inner arrays' elements counted); the filter's characters and depth are checked on the whole array",
  },
  { area: "search", field: "page", limit: MAX_PAGE, unit: "items", status: 422, note: "from 1" },
  {
    area: "search",
    field: "hitsPerPage",
    limit: MAX_HITS_PER_PAGE,
    unit: "items",
    status: 422,
    note: "from 0 (0 answers totals and facets only)",
  },
  {
    area: "search",
    field: "sort",
    limit: MAX_SORT,
    unit: "items",
    status: 422,
    note: "`attribute:asc` or `attribute:desc` each",
  },
  {
    area: "search",
    field: "facets",
    limit: MAX_FACETS,
    unit: "items",
    status: 422,
    note: `attribute names (\`*\`: every filterable attribute); at most ${MAX_VALUES_PER_FACET} values reported per facet, the first alphabetically`,
  },
  {
    area: "search",
    field: "attributesToRetrieve",
    limit: MAX_ATTRIBUTE_LIST,
    unit: "items",
    status: 422,
    note: "the same bound for attributesToHighlight and attributesToCrop",
  },
  {
    area: "search",
    field: "attribute names",
    limit: MAX_ATTRIBUTE_CHARS,
    unit: "characters",
    status: 422,
    note: "each name in sort, facets, attributesToRetrieve, attributesToHighlight, attributesToCrop",
  },
  {
    area: "search",
    field: "highlightPreTag",
    limit: MAX_TAG_CHARS,
    unit: "characters",
    status: 422,
    note: "the same bound for highlightPostTag and cropMarker",
  },
  { area: "search", field: "cropLength", limit: MAX_CROP_LENGTH, unit: "words", status: 422, note: "from 1" },
  {
    area: "search",
    field: "queries",
    limit: MAX_MULTI_SEARCH_QUERIES,
    unit: "items",
    status: 422,
    note: "POST /api/v1/multi-search; each query has the bounds of a search",
  },
  {
    area: "search",
    field: "facetQuery",
    limit: MAX_FACET_QUERY_CHARS,
    unit: "characters",
    status: 422,
    note: `POST /api/v1/indexes/{index}/facet-search; one word, typo tolerant up to ${MAX_EXPANDED_WORD_CHARS} characters (matched as a prefix beyond); at most ${MAX_VALUES_PER_FACET} facetHits answered`,
  },
  {
    area: "search",
    field: "facetName",
    limit: MAX_ATTRIBUTE_CHARS,
    unit: "characters",
    status: 422,
    note: "facet search: from 1, a filterable attribute; q, filter and matchingStrategy have the bounds of a search",
  },
  {
    area: "search",
    field: "query string",
    limit: MAX_QUERY_STRING_CHARS,
    unit: "characters",
    status: 422,
    note: "GET /api/v1/indexes/{index}/search, as sent (percent-encoded); checked before parsing; each parameter then has the bounds of the POST body",
  },
  {
    area: "search",
    field: "query string",
    limit: MAX_QUERY_PARAMS,
    unit: "items",
    status: 422,
    note: "parameters of GET /api/v1/indexes/{index}/search",
  },
  {
    area: "search",
    field: "x-api-key",
    limit: AUTH_FAILURES_PER_ADDRESS,
    unit: "per minute",
    status: 429,
    note: "failed authentications per client address, one budget with the customer, admin and monitor APIs in npm start (and the customer API on Lambda); then 429 with Retry-After until the minute ends, except for a key that already worked from that address",
  },
  {
    area: "search",
    field: "x-api-key",
    limit: AUTH_FAILURES_PER_PREFIX,
    unit: "per minute",
    status: 429,
    note: "failed authentications per key prefix (first 8 characters), from any address; refuses further wrong keys under it, never a correct key",
  },
  {
    area: "search",
    field: "model cache",
    limit: DEFAULT_MODEL_CACHE_MB,
    unit: "MB",
    status: 0,
    note: "estimated memory of the parsed models a worker keeps (typed arrays, tree and golden arrays, 64 KiB per model); least recently used evicted first",
    env: "MODEL_CACHE_MB",
  },
  {
    area: "model artifact",
    field: "artifact",
    limit: DEFAULT_ARTIFACT_MAX_BYTES,
    unit: "bytes",
    status: 0,
    note: `relevance model export and upload refuse (exit 1, nothing written; upload checks the file size before reading); the search proxy refuses to parse a larger one (no score, error logged, search succeeds); settable up to ${MAX_ARTIFACT_BYTES} bytes (the KV value limit)`,
    env: ARTIFACT_MAX_BYTES_ENV,
  },
  {
    area: "model artifact",
    field: "trainingProfile bins",
    limit: MAX_PROFILE_BINS,
    unit: "items",
    status: 0,
    note: "bins per feature or score distribution (edges at most one more); a loader refuses an artifact whose profile has more, naming the field (the export writes at most 10)",
  },
  {
    area: "model artifact",
    field: "--profile-rows",
    limit: MAX_PROFILE_ROWS,
    unit: "items",
    status: 0,
    note: "rows of the training file; relevance model export refuses a larger one (exit 1, nothing written); profile a sample",
  },
];
