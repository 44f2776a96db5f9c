import { isPlainObject } from "@relevance/core";
import { FIELD_OF_SEARCH_CODE } from "../meili-errors.ts";
import { RetrievalError } from "../ports.ts";

/** Meilisearch's documented error body: `{message, code, type, link}`. */
export interface MeilisearchErrorBody {
  message: string;
  code: string;
  type: string;
  link?: string;
}

export function asMeilisearchError(body: unknown): MeilisearchErrorBody | null {
  if (!isPlainObject(body) || typeof body.message !== "string" || typeof body.code !== "string") return null;
  return {
    message: body.message,
    code: body.code,
    type: typeof body.type === "string" ? body.type : "",
    ...(typeof body.link === "string" ? { link: body.link } : {}),
  };
}

/**
 * A Meilisearch error answer as a RetrievalError. Only errors in what the client chose (the filter,
 * mostly: "attribute not filterable", a syntax error) are the client's (422); everything else, an
 * index missing in Meilisearch while its settings exist, a rejected API key, a 5xx, is the
 * backend's or the deployment's problem (502).
 */
export function retrievalErrorOf(status: number, body: unknown): RetrievalError {
  const error = asMeilisearchError(body);
  if (error === null)
    return new RetrievalError("unavailable", `Meilisearch answered ${status} without an error body`);
  const field = FIELD_OF_SEARCH_CODE.get(error.code);
  if (field !== undefined && status >= 400 && status < 500) {
    return new RetrievalError("invalid_request", clientMessage(error.message), field);
  }
  return new RetrievalError("unavailable", `Meilisearch answered ${status} ${error.code}: ${error.message}`);
}

/** Meilisearch prefixes some messages with the index uid (`Index \`acct_1-products\`: ...`); the client does not need it. */
function clientMessage(message: string): string {
  return message.replace(/^Index `[^`]*`: /, "");
}
