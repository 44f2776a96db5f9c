/**
 * What the three AWS collectors share: assume the account's role, page through each Describe API
 * of the region (the EC2 client retries every page on throttling/5xx/timeouts, aws-retry.ts), write the rows to the sink, put
 * one event per resource on the queue, and report. A page that still fails ends that API with a
 * problem named by API and page: `partial` when something was read, `failed` when nothing was.
 */

import { randomUUID } from "node:crypto";
import type { EC2Client } from "@aws-sdk/client-ec2";
import {
  type Collector,
  type CollectorContext,
  type CollectorResult,
  errorText,
  type Limiter,
  RESOURCES_TABLE,
  type ResourceRow,
  type RowSink,
  type RuntimeLogEvent,
} from "@monitor/core";
import { raceAbort } from "./abort.ts";
import type { TemporaryCredentials } from "./assume-role.ts";
import { attemptsOf } from "./aws-retry.ts";
import { type Ec2ClientFactory, ec2ClientFactory } from "./clients.ts";
import { AccessDeniedError, AwsCollectError, PartialSendError } from "./errors.ts";
import { type EventQueue, resourceObservedEvent } from "./events.ts";

/** Where credentials for an account come from (RoleAssumer). */
export interface CredentialSource {
  credentials(accountId: string, signal?: AbortSignal): Promise<TemporaryCredentials>;
}

export interface AwsCollectorDeps {
  credentials: CredentialSource;
  /** svc.resources (ClickHouseResourceSink). */
  sink: RowSink;
  events: EventQueue;
  /**
   * Called when the role cannot be assumed, before the run fails with AccessDeniedError; the wiring
   * moves the account to `no_access` (markAccountNoAccess). Its own failure is logged, not raised.
   */
  onNoAccess?: (accountId: string, err: AccessDeniedError) => void | Promise<void>;
  /** Default: ec2ClientFactory() (the SDK's retries, 5 attempts; bounded socket timeouts). */
  ec2?: Ec2ClientFactory;
  /** Page size asked of every Describe API, clamped to each API's documented range. */
  pageSize?: number;
  /** Shared bound on concurrent Describe calls. */
  limiter?: Limiter;
  log?: (e: RuntimeLogEvent) => void;
}

/** The fields every row of a run shares. */
export interface RowBase {
  cloud_account_id: string;
  cloud_region: string;
  observed_at: number;
  run_id: string;
  collector: string;
}

export interface Observation {
  row: ResourceRow;
  /** False: an event only (terminated instance, deleted volume or NAT gateway). */
  stored: boolean;
}

/** One paginated Describe API. */
export interface PagedApi {
  api: string;
  /** The API's documented MaxResults range. */
  minPageSize: number;
  maxPageSize: number;
  page(
    client: EC2Client,
    req: { nextToken: string | undefined; pageSize: number; signal: AbortSignal },
    base: RowBase,
  ): Promise<{ observations: Observation[]; nextToken: string | undefined }>;
}

/** A guard against an API that keeps answering with a NextToken. */
const MAX_PAGES = 10_000;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function awsCollector(name: string, apis: readonly PagedApi[], deps: AwsCollectorDeps): Collector {
  const makeClient = deps.ec2 ?? ec2ClientFactory();
  const log = deps.log ?? (() => {});
  return {
    name,
    async run(ctx: CollectorContext): Promise<CollectorResult> {
      const accountId = ctx.account.account_id;
      const where = { collector: name, account: accountId, region: ctx.region };
      const runId = ctx.run_id ?? randomUUID();
      let creds: TemporaryCredentials;
      try {
        creds = await deps.credentials.credentials(accountId, ctx.signal);
      } catch (err) {
        if (err instanceof AccessDeniedError && deps.onNoAccess) {
          try {
            await deps.onNoAccess(accountId, err);
          } catch (hookErr) {
            log({
              level: "error",
              msg: `could not mark the account no_access: ${errorText(hookErr)}`,
              ...where,
            });
          }
        }
        throw err;
      }

      const client = makeClient(ctx.region, creds);
      const seen = new Map<string, Observation>();
      const problems: string[] = [];
      let pagesRead = 0;
      try {
        for (const api of apis) {
          const pageSize = Math.min(
            api.maxPageSize,
            Math.max(api.minPageSize, deps.pageSize ?? api.maxPageSize),
          );
          const tokens = new Set<string>();
          let nextToken: string | undefined;
          for (let page = 1; page <= MAX_PAGES; page++) {
            let res: Awaited<ReturnType<PagedApi["page"]>>;
            // The client retries the call (its retry strategy); the limiter's slot is held meanwhile.
            const call = () =>
              raceAbort(
                api.page(
                  client,
                  { nextToken, pageSize, signal: ctx.signal },
                  {
                    cloud_account_id: accountId,
                    cloud_region: ctx.region,
                    observed_at: ctx.now(),
                    run_id: runId,
                    collector: name,
                  },
                ),
                ctx.signal,
              );
            try {
              res = await (deps.limiter ? deps.limiter.run(call, ctx.signal) : call());
            } catch (err) {
              if (ctx.signal.aborted) throw ctx.signal.reason;
              problems.push(
                `${api.api} page ${page} failed after ${plural(attemptsOf(err), "attempt")}: ${errorText(err)}`,
              );
              break;
            }
            pagesRead++;
            // A resource listed twice (it moved between pages while we paged) counts once.
            for (const o of res.observations) seen.set(`${o.row.resource_type}/${o.row.resource_id}`, o);
            const next = res.nextToken || undefined;
            if (next === undefined) break;
            if (tokens.has(next)) {
              problems.push(`${api.api} page ${page} repeated an earlier NextToken; paging stopped`);
              break;
            }
            tokens.add(next);
            nextToken = next;
          }
        }
      } finally {
        client.destroy();
      }
      if (pagesRead === 0 && problems.length > 0) throw new AwsCollectError(problems);

      const observations = [...seen.values()];
      const rows = observations.filter((o) => o.stored).map((o) => o.row);
      // Rows first: they are the inventory; a failed write fails the run (nothing was stored).
      const rowsInserted = rows.length > 0 ? await deps.sink.write(RESOURCES_TABLE, rows) : 0;

      let eventsSent = 0;
      if (observations.length > 0) {
        const messages = observations.map((o) => JSON.stringify(resourceObservedEvent(o.row, o.stored)));
        try {
          eventsSent = await deps.events.send(messages, ctx.signal);
          if (eventsSent < messages.length) {
            problems.push(`events: the queue accepted ${eventsSent} of ${messages.length}`);
          }
        } catch (err) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          if (err instanceof PartialSendError) {
            eventsSent = err.sent;
            problems.push(`events: ${err.message}`);
          } else problems.push(`events: none sent: ${errorText(err)}`);
        }
      }
      return problems.length > 0
        ? {
            status: "partial",
            events_produced: eventsSent,
            rows_inserted: rowsInserted,
            error: problems.join("; "),
          }
        : { status: "succeeded", events_produced: eventsSent, rows_inserted: rowsInserted };
    },
  };
}
