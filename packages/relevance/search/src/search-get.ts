// Meilisearch's `GET /indexes/{index}/search`: the search parameters in the query string, read into
// the body a POST search takes so both are checked by one schema and answered by one path.
import { ApiError } from "@shared/http";
import { MAX_QUERY_PARAMS, MAX_QUERY_STRING_CHARS } from "./limits.ts";

/** Parameters Meilisearch takes comma-separated in a GET search. */
const LISTS = new Set([
  "attributesToRetrieve",
  "attributesToCrop",
  "attributesToHighlight",
  "sort",
  "facets",
  "attributesToSearchOn",
  "locales",
]);
const NUMBERS = new Set(["offset", "limit", "page", "hitsPerPage", "cropLength", "rankingScoreThreshold"]);
const BOOLEANS = new Set([
  "showRankingScore",
  "showRankingScoreDetails",
  "showMatchesPosition",
  "retrieveVectors",
  "relevanceScore",
]);
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * The query string of a GET search (without `?`) as a search body. A number or boolean that does
 * not read as one stays text, so the schema names the parameter and what it got; an unknown
 * parameter stays too, and is refused by name. The size bounds are checked before anything is
 * decoded (422 beyond either).
 */
export function searchBodyOfQueryString(raw: string): Record<string, unknown> {
  if (raw.length > MAX_QUERY_STRING_CHARS) {
    throw new ApiError(
      422,
      "validation_failed",
      `the search request is invalid: the query string is ${raw.length} characters, more than the limit of ${MAX_QUERY_STRING_CHARS}`,
      [
        {
          path: "",
          message: `the query string must be at most ${MAX_QUERY_STRING_CHARS} characters, got ${raw.length}`,
        },
      ],
    );
  }
  let count = 0;
  for (let i = raw.indexOf("&"); i !== -1; i = raw.indexOf("&", i + 1)) count++;
  if (raw !== "" && count + 1 > MAX_QUERY_PARAMS) {
    throw new ApiError(
      422,
      "validation_failed",
      `the search request is invalid: the query string has ${count + 1} parameters, more than the limit of ${MAX_QUERY_PARAMS}`,
      [
        {
          path: "query string",
          message: `must have at most ${MAX_QUERY_PARAMS} parameters, got ${count + 1}`,
        },
      ],
    );
  }
  const body: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    // The first of a repeated parameter counts, as for every other GET route.
    if (Object.hasOwn(body, name)) continue;
    const read = LISTS.has(name)
      ? value.split(",").map((v) => v.trim())
      : NUMBERS.has(name) && NUMBER.test(value)
        ? Number(value)
        : BOOLEANS.has(name) && (value === "true" || value === "false")
          ? value === "true"
          : value;
    // An own property even for `__proto__`, so the schema refuses it by name like any unknown one.
    Object.defineProperty(body, name, { value: read, enumerable: true, writable: true, configurable: true });
  }
  return body;
}
