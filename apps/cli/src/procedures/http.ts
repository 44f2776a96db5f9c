// The two HTTP APIs the procedures use: the internal admin API (relevance-trigger-config, docs/api.md)
// and the search API (docs/search.md). Every failure is one line naming the API and what to do.
import { type Issue, isPlainObject, type RelevanceTriggerConfig } from "@relevance/core";
import { UserError } from "../io.ts";
import type { AdminAuth } from "./admin-auth.ts";

const TIMEOUT_MS = 15_000;

async function request(what: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    const hint = cause === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : cause;
    throw new UserError(`cannot reach the ${what} at ${new URL(url).origin} (${hint}); is it running?`);
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `{error: {code, message, details}}` as one line. */
function errorLine(body: unknown): string {
  if (isPlainObject(body) && isPlainObject(body.error)) {
    const { message, details } = body.error;
    const first = Array.isArray(details) && isPlainObject(details[0]) ? details[0] : undefined;
    const detail = first ? `: ${first.path ? `${String(first.path)}: ` : ""}${String(first.message)}` : "";
    return `${String(message)}${detail}`;
  }
  return typeof body === "string" ? body.slice(0, 200) : JSON.stringify(body).slice(0, 200);
}

export interface ConfigState {
  /** The config, null when none is set; a malformed stored value comes back as is. */
  config: RelevanceTriggerConfig | null | unknown;
  version: number;
  storedConfigProblems?: Issue[];
}

export type PutOutcome = { ok: true; version: number; warnings: string[] } | { ok: false; conflict: string };

/**
 * `{env}-AdminInternalApi`: GET and PUT of `relevance-trigger-config`, authenticated by `auth` (SigV4
 * and `X-Admin-Token` behind the cloud environments' IAM-authorized gateway, the bearer token locally).
 */
export class AdminApi {
  private readonly baseUrl: string;
  private readonly auth: AdminAuth;

  constructor(baseUrl: string, auth: AdminAuth) {
    this.baseUrl = baseUrl;
    this.auth = auth;
  }

  private url(account: string, index: string, segment = "relevance-trigger-config"): string {
    return `${this.baseUrl}/api/v1/admin/accounts/${encodeURIComponent(account)}/indexes/${encodeURIComponent(index)}/${segment}`;
  }

  private fail(status: number, body: unknown, account: string, index: string): never {
    if (status === 403 && this.auth.kind === "sigv4") {
      // API Gateway's own refusal (`{"message": …}`), before the function runs.
      const why = isPlainObject(body) && typeof body.message === "string" ? body.message : errorLine(body);
      throw new UserError(
        `the API gateway refused the signed request (403: ${why}): the AWS identity needs execute-api:Invoke ` +
          "on the stack's AdminApiInvokeArn, and awsRegion in the environments file must be the API's region",
      );
    }
    if (status === 401 || status === 403)
      throw new UserError(`the admin API refused ADMIN_TOKEN (${status}): set the token of this environment`);
    if (status === 404) throw new UserError(`${account}/${index}: ${errorLine(body)} (admin API, 404)`);
    throw new UserError(`the admin API answered ${status}: ${errorLine(body)}`);
  }

  async get(account: string, index: string): Promise<ConfigState> {
    const url = this.url(account, index);
    const res = await request("admin API", url, {
      headers: await this.auth.headers({ method: "GET", url, headers: {} }),
    });
    const body = await readBody(res);
    if (res.status !== 200 || !isPlainObject(body) || typeof body.version !== "number")
      this.fail(res.status, body, account, index);
    return {
      config: body.relevanceTriggerConfig,
      version: body.version,
      ...(Array.isArray(body.storedConfigProblems)
        ? { storedConfigProblems: body.storedConfigProblems as Issue[] }
        : {}),
    };
  }

  /** A conditional PUT (`If-Match: "<version>"`); a 409 is returned, not thrown, so callers can say what to do. */
  put(
    account: string,
    index: string,
    config: RelevanceTriggerConfig | null,
    version: number,
  ): Promise<PutOutcome> {
    const value = config === null ? null : { ...config };
    return this.putSetting(
      account,
      index,
      "relevance-trigger-config",
      "relevanceTriggerConfig",
      value,
      version,
    );
  }

  /**
   * GET of another per-index setting (`relevance-shadow-config`, `relevance-canary-config`): its
   * `{<bodyKey>: value | null, version}`.
   */
  async getSetting(
    account: string,
    index: string,
    segment: string,
    bodyKey: string,
  ): Promise<{ value: unknown; version: number }> {
    const url = this.url(account, index, segment);
    const res = await request("admin API", url, {
      headers: await this.auth.headers({ method: "GET", url, headers: {} }),
    });
    const body = await readBody(res);
    if (res.status !== 200 || !isPlainObject(body) || typeof body.version !== "number")
      this.fail(res.status, body, account, index);
    return { value: body[bodyKey] ?? null, version: body.version };
  }

  /** A conditional PUT of another per-index setting; a 409 is returned, not thrown. */
  async putSetting(
    account: string,
    index: string,
    segment: string,
    bodyKey: string,
    value: Record<string, unknown> | null,
    version: number,
  ): Promise<PutOutcome> {
    const url = this.url(account, index, segment);
    const body = JSON.stringify({ [bodyKey]: value });
    const headers = { "content-type": "application/json", "if-match": `"${version}"` };
    const res = await request("admin API", url, {
      method: "PUT",
      headers: await this.auth.headers({ method: "PUT", url, headers, body }),
      body,
    });
    const answer = await readBody(res);
    if (res.status === 409) return { ok: false, conflict: errorLine(answer) };
    if (res.status !== 200 || !isPlainObject(answer) || typeof answer.version !== "number")
      this.fail(res.status, answer, account, index);
    const warnings = Array.isArray(answer.warnings) ? answer.warnings.map(String) : [];
    return { ok: true, version: answer.version, warnings };
  }

  /** `GET .../indexes/{index}/quality` with the given query parameters: the report as answered. */
  async quality(account: string, index: string, params: Record<string, string>): Promise<unknown> {
    const query = new URLSearchParams(params).toString();
    const url = `${this.baseUrl}/api/v1/admin/accounts/${encodeURIComponent(account)}/indexes/${encodeURIComponent(index)}/quality${query === "" ? "" : `?${query}`}`;
    const res = await request("admin API", url, {
      headers: await this.auth.headers({ method: "GET", url, headers: {} }),
    });
    const body = await readBody(res);
    if (res.status === 503)
      throw new UserError(
        `${errorLine(body)} (admin API, 503): this environment records no searches; configure its outcome store`,
      );
    if (res.status !== 200) this.fail(res.status, body, account, index);
    return body;
  }
}

export interface SearchAnswer {
  status: number;
  /** `relevanceScore` when the answer had one. */
  score: number | undefined;
  /** The `x-relevance-model` header: the model behind the score. */
  model: string | null;
  /** The error line of a non-200 answer. */
  error?: string;
}

/** One scored search: `POST {base}/api/v1/indexes/{index}/search` with `relevanceScore: true`. */
export async function scoredSearch(
  baseUrl: string,
  index: string,
  apiKey: string,
  query: string,
): Promise<SearchAnswer> {
  const res = await request("search API", `${baseUrl}/api/v1/indexes/${encodeURIComponent(index)}/search`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ q: query, relevanceScore: true }),
  });
  const body = await readBody(res);
  if (res.status !== 200)
    return { status: res.status, score: undefined, model: null, error: errorLine(body) };
  const score =
    isPlainObject(body) && typeof body.relevanceScore === "number" ? body.relevanceScore : undefined;
  return { status: 200, score, model: res.headers.get("x-relevance-model") };
}
