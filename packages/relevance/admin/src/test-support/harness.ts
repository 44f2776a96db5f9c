// Test harness: the apps over the real SQLite adapters, the exporter run by draining the change log.
import { buildArtifact, modelKey } from "@relevance/core";
import { smallDraft } from "@relevance/core/test-support/small-model";
import { ChangeTailer, type Logger } from "@relevance/settings";
import {
  openDatabase,
  SqliteChangeLog,
  SqliteDocumentStore,
  SqliteKv,
  SqliteSettingsTable,
} from "@relevance/settings/sqlite";
import { createApiApp } from "../app.ts";
import type { ApiDeps, DocumentStore } from "../ports.ts";

export const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface LogLine {
  level: "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies loosely
  body: any;
  text: string;
  headers: Headers;
}

export function makeHarness(overrides: Partial<ApiDeps> = {}) {
  const db = openDatabase(":memory:");
  const table = new SqliteSettingsTable(db);
  const kv = new SqliteKv(db);
  const documents: DocumentStore = new SqliteDocumentStore(db);
  const changeLog = new SqliteChangeLog(db);
  const lines: LogLine[] = [];
  const log: Logger = {
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
  };
  const deps: ApiDeps = {
    table,
    kv,
    documents,
    adminToken: ADMIN_TOKEN,
    log,
    now: () => new Date("2026-11-21T12:00:00.000Z"),
    ...overrides,
  };
  const app = createApiApp(deps);
  const tailer = new ChangeTailer(changeLog, { kv, log });

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const res = await app.request(path, init);
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(method, path, body, { ...adminHeaders, ...headers });
  const customer = (key: string, method: string, path: string, body?: unknown) =>
    call(method, path, body, { "x-api-key": key });

  const configPath = (account: string, index: string) =>
    `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;

  return {
    db,
    table,
    kv,
    documents,
    deps,
    app,
    lines,
    call,
    admin,
    customer,
    configPath,
    /** Every stored item and document, to show that a refused request wrote nothing. */
    dump: () =>
      JSON.stringify([
        db.prepare("SELECT * FROM items ORDER BY pk, sk").all(),
        db.prepare("SELECT * FROM documents ORDER BY account, index_name, doc_id").all(),
      ]),
    /** Runs the settings exporter over everything written so far. */
    drain: () => tailer.drain(),
    async account(name = "Shop"): Promise<{ systemAccountId: string; apiKey: string; searchApiKey: string }> {
      const res = await admin("POST", "/api/v1/admin/accounts", { name });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.text}`);
      return res.body;
    },
    async index(apiKey: string, name: string, primaryKey?: string): Promise<void> {
      const res = await customer(apiKey, "POST", "/api/v1/indexes", { name, primaryKey });
      if (res.status !== 201) throw new Error(`index creation failed: ${res.text}`);
    },
    putConfig: (account: string, index: string, config: unknown, headers: Record<string, string> = {}) =>
      admin("PUT", configPath(account, index), { relevanceTriggerConfig: config }, headers),
    getConfig: (account: string, index: string) => admin("GET", configPath(account, index)),
    /** The upload procedure: the artifact under `relevance_model:<modelId>`. */
    async upload(modelId: string, titleField: string | null, tagsField: string | null): Promise<void> {
      const built = buildArtifact(smallDraft(), { modelId, titleField, tagsField, index: "products" });
      if (!built.ok) throw new Error("artifact build failed");
      await kv.put(modelKey(modelId), built.value.text);
    },
    /** The KV copy `<account>-<index>` written by the exporter, parsed. */
    async copy(account: string, index: string): Promise<Record<string, unknown> | null> {
      const text = await kv.get(`${account}-${index}`);
      return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
    },
  };
}

export type Harness = ReturnType<typeof makeHarness>;

/** A stack trace line in a body ("\n    at fn (file:1:2)"). */
export const STACK = /\n\s+at /;
