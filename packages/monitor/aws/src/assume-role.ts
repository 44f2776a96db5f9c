/**
 * STS AssumeRole into each monitored account (`arn:<partition>:iam::<account>:role/<roleName>`,
 * with the external id), credentials cached per account until shortly before they expire. Many
 * runs of one account start together (3 collectors × N regions): they share one STS call. Retries of
 * that call are the STS client's (build it with `awsRetryConfig()`, aws-retry.ts).
 */
import { AssumeRoleCommand, type STSClient } from "@aws-sdk/client-sts";
import { raceAbort } from "./abort.ts";
import { AccessDeniedError } from "./errors.ts";

/** Temporary credentials, in the shape SDK clients accept as `credentials`. */
export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface RoleAssumerOptions {
  /** A client with the runtime's own identity, retrying as `awsRetryConfig()` sets (throttling, 5xx). */
  sts: STSClient;
  /** Default "svcmon-collector". */
  roleName?: string;
  externalId?: string;
  /** Default "svcmon-collector" (2 to 64 of [\w+=,.@-]; CloudTrail in the account shows it). */
  sessionName?: string;
  /** Default 3600 (the role's maximum session duration must allow it). */
  durationSeconds?: number;
  /** Refresh this long before `Expiration`. Default 5 minutes. */
  refreshMarginMs?: number;
  /**
   * Bound of one shared AssumeRole (all its attempts): a hung call must not hold every later run of
   * the account. Default 30 000 ms.
   */
  timeoutMs?: number;
  /** Default "aws" ("aws-cn", "aws-us-gov" elsewhere). */
  partition?: string;
  now?: () => number;
}

const ACCOUNT_RE = /^\d{12}$/;
const SESSION_RE = /^[\w+=,.@-]{2,64}$/;
const DENIED = new Set(["AccessDenied", "AccessDeniedException"]);

/** A refusal by the account's role (trust policy, external id, role missing), not a transient fault. */
export function isAccessDenied(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return (typeof e.name === "string" && DENIED.has(e.name)) || e.$metadata?.httpStatusCode === 403;
}

export class RoleAssumer {
  readonly #o: Required<Omit<RoleAssumerOptions, "externalId">> & Pick<RoleAssumerOptions, "externalId">;
  readonly #cache = new Map<string, TemporaryCredentials>();
  readonly #inflight = new Map<string, Promise<TemporaryCredentials>>();

  constructor(opts: RoleAssumerOptions) {
    this.#o = {
      sts: opts.sts,
      roleName: opts.roleName ?? "svcmon-collector",
      externalId: opts.externalId,
      sessionName: opts.sessionName ?? "svcmon-collector",
      durationSeconds: opts.durationSeconds ?? 3600,
      refreshMarginMs: opts.refreshMarginMs ?? 5 * 60_000,
      timeoutMs: opts.timeoutMs ?? 30_000,
      partition: opts.partition ?? "aws",
      now: opts.now ?? Date.now,
    };
    if (!SESSION_RE.test(this.#o.sessionName)) {
      throw new Error(`sessionName must be 2 to 64 characters of [\\w+=,.@-], got ${this.#o.sessionName}`);
    }
  }

  roleArn(accountId: string): string {
    return `arn:${this.#o.partition}:iam::${accountId}:role/${this.#o.roleName}`;
  }

  /**
   * Credentials for the account: cached ones while they have more than the margin left, otherwise
   * a new AssumeRole (throttling and 5xx retried by the STS client). A refusal rejects with AccessDeniedError.
   */
  async credentials(accountId: string, signal?: AbortSignal): Promise<TemporaryCredentials> {
    if (!ACCOUNT_RE.test(accountId)) throw new Error(`account id must be 12 digits, got "${accountId}"`);
    const cached = this.#cache.get(accountId);
    if (cached && cached.expiration.getTime() - this.#o.refreshMarginMs > this.#o.now()) return cached;
    let call = this.#inflight.get(accountId);
    if (!call) {
      // Not bound to one caller's signal: the callers share it, and each stops waiting on its own.
      call = this.#assume(accountId).finally(() => this.#inflight.delete(accountId));
      this.#inflight.set(accountId, call);
    }
    return raceAbort(call, signal);
  }

  /** Drops the cached credentials of an account (e.g. after its role changed). */
  forget(accountId: string): void {
    this.#cache.delete(accountId);
  }

  async #assume(accountId: string): Promise<TemporaryCredentials> {
    const roleArn = this.roleArn(accountId);
    const ac = new AbortController();
    const timer = setTimeout(
      () => ac.abort(new Error(`AssumeRole of ${roleArn} did not answer within ${this.#o.timeoutMs} ms`)),
      this.#o.timeoutMs,
    );
    try {
      const out = await raceAbort(
        this.#o.sts.send(
          new AssumeRoleCommand({
            RoleArn: roleArn,
            RoleSessionName: this.#o.sessionName,
            DurationSeconds: this.#o.durationSeconds,
            ...(this.#o.externalId === undefined ? {} : { ExternalId: this.#o.externalId }),
          }),
          { abortSignal: ac.signal },
        ),
        ac.signal,
      );
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !(c.Expiration instanceof Date)) {
        throw new Error(`AssumeRole of ${roleArn} returned no complete credentials`);
      }
      const creds: TemporaryCredentials = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiration: c.Expiration,
      };
      this.#cache.set(accountId, creds);
      return creds;
    } catch (err) {
      this.#cache.delete(accountId);
      if (isAccessDenied(err)) throw new AccessDeniedError(accountId, roleArn, err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}
