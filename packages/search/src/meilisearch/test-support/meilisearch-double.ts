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
 * wrong key invalid_api_key, no key missing_authorization_header.
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
    const limit = typeof body.limit === "number" ? body.limit : 20;
    const offset = typeof body.offset === "number" ? body.offset : 0;
    const all = [
      { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
      { id: 2, title: "Blue running shorts", tags: ["apparel"] },
      { id: 3, title: "Red socks", tags: ["socks"] },
    ];
    return c.json({
      hits: all.slice(offset, offset + limit),
      query: body.q ?? "",
      processingTimeMs: 1,
      limit,
      offset,
      estimatedTotalHits: 976,
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
