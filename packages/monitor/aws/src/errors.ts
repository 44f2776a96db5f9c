/** Typed failures of the AWS collectors; their `name: message` is what the run record's error shows. */

/** Role assumption into a monitored account was refused: the account goes to `no_access`. */
export class AccessDeniedError extends Error {
  override name = "AccessDeniedError";
  readonly accountId: string;
  readonly roleArn: string;
  constructor(accountId: string, roleArn: string, cause: unknown) {
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`cannot assume ${roleArn} in account ${accountId}: ${detail}`, { cause });
    this.accountId = accountId;
    this.roleArn = roleArn;
  }
}

/** Every API call of a run failed (nothing was read): the run is `failed` with each API's error. */
export class AwsCollectError extends Error {
  override name = "AwsCollectError";
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join("; "));
    this.problems = problems;
  }
}

/** Some events were not accepted by the queue. */
export class PartialSendError extends Error {
  override name = "PartialSendError";
  readonly sent: number;
  readonly failed: number;
  constructor(sent: number, failed: number, detail: string) {
    super(`${failed} of ${sent + failed} events not sent: ${detail}`);
    this.sent = sent;
    this.failed = failed;
  }
}
