// A LOCAL DOUBLE of the Meilisearch HTTP API, not Meilisearch: a Hono app on 127.0.0.1 that replays
// the response shapes Meilisearch documents for `POST /indexes/{index_uid}/search`
// (https://www.meilisearch.com/docs/reference/api/search) and its error bodies
// `{message, code, type, link}` (https://www.meilisearch.com/docs/reference/errors/overview).
// Test-only (node:* is fine here).
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

export const MASTER_KEY = "double-search-key";

const errorBody = (message: string, code: string, type: string) => ({
  message,
  code,
  type,
  link: `https://docs.meilisearch.com/errors#${code}`,
});

export interface RecordedRequest {
  uid: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface MeilisearchDouble {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Index uids decide the answer: `*-products` answers documented hits, `*-missing` index_not_found,
 * `*-broken` a 500 `internal`, `*-slow` the hits after `slowMs`, `*-proxy` a non-JSON 502 as a
 * load balancer in front of Meilisearch would. A filter on `color` is invalid_search_filter, a
 * wrong key invalid_api_key, no key missing_authorization_header. Sort (on `id` or `title`, else
 * invalid_search_sort), facets (`id`, `tags`, else invalid_search_facets; facetStats for `id`),
 * page/hitsPerPage (totalHits 3), attributesToRetrieve, attributesToHighlight with its tags
 * (whole words of q) and showRankingScore are answered as Meilisearch documents them.
 */
export async function startMeilisearchDouble(slowMs = 1000): Promise<MeilisearchDouble> {
  const requests: RecordedRequest[] = [];
  const app = new Hono();
  app.post("/indexes/:uid/search", async (c) => {
    const uid = c.req.param("uid");
    const body = (await c.req.json()) as Record<string, unknown>;
    const authorization = c.req.header("authorization");
    requests.push({ uid, authorization, body });
    if (authorization === undefined) {
      return c.json(
        errorBody(
          "The Authorization header is missing. It must use the bearer authorization method.",
          "missing_authorization_header",
          "auth",
        ),
        401,
      );
    }
    if (authorization !== `Bearer ${MASTER_KEY}`) {
      return c.json(errorBody("The provided API key is invalid.", "invalid_api_key", "auth"), 403);
    }
    if (uid.endsWith("-missing")) {
      return c.json(errorBody(`Index \`${uid}\` not found.`, "index_not_found", "invalid_request"), 404);
    }
    if (uid.endsWith("-broken")) {
      return c.json(
        errorBody("An internal error has occurred. `Corrupted task queue.`.", "internal", "internal"),
        500,
      );
    }
    if (uid.endsWith("-proxy")) return c.text("<html><body>502 Bad Gateway</body></html>", 502);
    if (typeof body.filter === "string" && body.filter.includes("color")) {
      return c.json(
        errorBody(
          `Index \`${uid}\`: Attribute \`color\` is not filterable. Available filterable attributes are: \`tags\`.\n1:6 color = red`,
          "invalid_search_filter",
          "invalid_request",
        ),
        400,
      );
    }
    if (uid.endsWith("-slow")) await new Promise((resolve) => setTimeout(resolve, slowMs));
    const all: Record<string, unknown>[] = [
      { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
      { id: 2, title: "Blue running shorts", tags: ["apparel"] },
      { id: 3, title: "Red socks", tags: ["socks"] },
    ];
    // Sortable attributes of the double's indexes: id and title; filterable: id and tags.
    const sort = Array.isArray(body.sort) ? (body.sort as string[]) : [];
    for (const criterion of sort) {
      const [attribute, direction] = criterion.split(":");
      if (attribute !== "id" && attribute !== "title") {
        return c.json(
          errorBody(
            `Index \`${uid}\`: Attribute \`${attribute}\` is not sortable. Available sortable attributes are: \`id, title\`.`,
            "invalid_search_sort",
            "invalid_request",
          ),
          400,
        );
      }
      const sign = direction === "desc" ? -1 : 1;
      all.sort((x, y) => sign * String(x[attribute]).localeCompare(String(y[attribute])));
    }
    const facets = Array.isArray(body.facets) ? (body.facets as string[]) : undefined;
    const facetDistribution: Record<string, Record<string, number>> = {};
    const facetStats: Record<string, { min: number; max: number }> = {};
    for (const facet of facets ?? []) {
      if (facet !== "id" && facet !== "tags") {
        return c.json(
          errorBody(
            `Index \`${uid}\`: Invalid facet distribution, attribute \`${facet}\` is not filterable. The available filterable attributes are \`id, tags\`.`,
            "invalid_search_facets",
            "invalid_request",
          ),
          400,
        );
      }
      const counts: Record<string, number> = {};
      for (const doc of all) {
        const value = doc[facet];
        for (const v of Array.isArray(value) ? value : [value])
          counts[String(v)] = (counts[String(v)] ?? 0) + 1;
      }
      facetDistribution[facet] = counts;
      if (facet === "id") facetStats.id = { min: 1, max: 3 };
    }
    const paged = body.page !== undefined || body.hitsPerPage !== undefined;
    const hitsPerPage = typeof body.hitsPerPage === "number" ? body.hitsPerPage : 20;
    const page = typeof body.page === "number" ? body.page : 1;
    const limit = paged ? hitsPerPage : typeof body.limit === "number" ? body.limit : 20;
    const offset = paged ? (page - 1) * hitsPerPage : typeof body.offset === "number" ? body.offset : 0;
    const retrieve = Array.isArray(body.attributesToRetrieve)
      ? (body.attributesToRetrieve as string[])
      : ["*"];
    const highlight = Array.isArray(body.attributesToHighlight)
      ? (body.attributesToHighlight as string[])
      : [];
    const words = String(body.q ?? "")
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== "");
    const pre = typeof body.highlightPreTag === "string" ? body.highlightPreTag : "<em>";
    const post = typeof body.highlightPostTag === "string" ? body.highlightPostTag : "</em>";
    const hits = all.slice(offset, offset + limit).map((doc, i) => {
      const hit: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(doc))
        if (retrieve.includes("*") || retrieve.includes(k)) hit[k] = v;
      if (highlight.length > 0) {
        const formatted: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(hit)) {
          formatted[k] =
            typeof v === "string" && (highlight.includes("*") || highlight.includes(k))
              ? v.replace(/\p{L}+/gu, (w) => (words.includes(w.toLowerCase()) ? `${pre}${w}${post}` : w))
              : typeof v === "number"
                ? String(v)
                : v;
        }
        hit._formatted = formatted;
      }
      if (body.showRankingScore === true) hit._rankingScore = 1 - (offset + i) / 10;
      return hit;
    });
    return c.json({
      hits,
      query: body.q ?? "",
      processingTimeMs: 1,
      ...(paged
        ? {
            hitsPerPage,
            page,
            totalPages: Math.ceil(all.length / Math.max(1, hitsPerPage)),
            totalHits: all.length,
          }
        : { limit, offset, estimatedTotalHits: 976 }),
      ...(facets === undefined ? {} : { facetDistribution, facetStats }),
    });
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
