/**
 * One behaviour suite for every `DeliveryLog` adapter (in memory here; ClickHouse/chDB in
 * `@monitor/clickhouse`). Each test uses notification ids of its own, so adapters may share one storage.
 */
import { describe, expect, it } from "vitest";
import { deliver } from "./deliver.ts";
import type { Channel, DeliveryAttempt, DeliveryLog, Notification } from "./ports.ts";

export interface DeliveryLogSubject {
  log: DeliveryLog;
  /**
   * The log as the next process sees it: a new adapter instance on the same storage. A log that lives
   * in process memory returns itself (it survives nothing more than that).
   */
  reopen(): Promise<DeliveryLog>;
}

const unique = (tag: string): string => `contract:${tag}:${crypto.randomUUID()}`;

/** Attempt times near now: a persistent log may drop old attempts (retention). */
const BASE_MS = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const at = (offsetMs: number): string => new Date(BASE_MS + offsetMs).toISOString();

function attempt(notificationId: string, over: Partial<DeliveryAttempt> = {}): DeliveryAttempt {
  return {
    notificationId,
    channel: "hook",
    attempt: 1,
    at: at(0),
    ok: true,
    durationMs: 12,
    ...over,
  };
}

/** A channel in process memory that counts what it was sent and fails while `down` is set. */
function countingChannel(name: string): Channel & { sent: string[]; down: boolean } {
  const ch = {
    name,
    sent: [] as string[],
    down: false,
    async send(n: Notification): Promise<void> {
      ch.sent.push(n.id);
      if (ch.down) throw new Error(`${name}: HTTP 503`);
    },
  };
  return ch;
}

function notification(id: string): Notification {
  return {
    id,
    source: "monitor",
    rule: "collector_stale",
    subject: "config_ec2",
    severity: "critical",
    kind: "firing",
    title: "[critical] collector_stale firing: config_ec2",
    text: "no success in 2 × the expected interval",
    at: "2025-01-31T12:00:00.000Z",
  };
}

export function deliveryLogContract(name: string, open: () => Promise<DeliveryLogSubject>): void {
  describe(`DeliveryLog contract: ${name}`, () => {
    it("has no attempts for a notification it never saw", async () => {
      const { log } = await open();
      expect(await log.attempts(unique("unknown"))).toEqual([]);
    });

    it("gives back every field as recorded; `error` only on the failed attempt", async () => {
      const { log } = await open();
      const id = unique("fields");
      const failed = attempt(id, {
        channel: "ops-mail",
        attempt: 1,
        at: at(7),
        ok: false,
        error: 'ops-mail: 550 "mailbox unavailable"\nline 2: größe ✓ \\ \u0000end',
        durationMs: 0,
      });
      const ok = attempt(id, {
        channel: "ops-mail",
        attempt: 2,
        at: at(30_999),
        durationMs: 123_456,
      });
      await log.record(failed);
      await log.record(ok);
      const got = await log.attempts(id);
      expect(got).toEqual([failed, ok]);
      expect("error" in (got[1] as DeliveryAttempt)).toBe(false);
    });

    it("lists one notification's attempts oldest first, across channels, and none of another's", async () => {
      const { log } = await open();
      const a = unique("order-a");
      const b = unique("order-b");
      const t = (s: number) => at(s * 1000);
      const expected: DeliveryAttempt[] = [];
      for (let i = 1; i <= 3; i++) {
        const hook = attempt(a, { channel: "hook", attempt: i, at: t(i * 10), ok: i === 3 });
        const slack = attempt(a, { channel: "slack", attempt: i, at: t(i * 10 + 1), ok: false, error: "x" });
        await log.record(hook.ok ? hook : { ...hook, error: "down" });
        await log.record(attempt(b, { attempt: i, at: t(i * 10 + 2) }));
        await log.record(slack);
        expected.push(hook.ok ? hook : { ...hook, error: "down" }, slack);
      }
      expect(await log.attempts(a)).toEqual(expected);
      expect((await log.attempts(b)).map((x) => x.attempt)).toEqual([1, 2, 3]);
    });

    it("keeps ids apart that differ only in case or by a suffix", async () => {
      const { log } = await open();
      const base = unique("Case");
      for (const [i, id] of [base, base.toLowerCase(), `${base}0`].entries()) {
        await log.record(attempt(id, { attempt: i + 1 }));
      }
      expect((await log.attempts(base)).map((x) => x.attempt)).toEqual([1]);
      expect((await log.attempts(base.toLowerCase())).map((x) => x.attempt)).toEqual([2]);
      expect((await log.attempts(`${base}0`)).map((x) => x.attempt)).toEqual([3]);
    });

    it("keeps every one of many attempts recorded at the same time", async () => {
      const { log } = await open();
      const id = unique("concurrent");
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          log.record(attempt(id, { channel: `ch-${i % 4}`, attempt: Math.floor(i / 4) + 1 })),
        ),
      );
      const got = await log.attempts(id);
      expect(got).toHaveLength(40);
      expect(new Set(got.map((x) => `${x.channel}#${x.attempt}`)).size).toBe(40);
    });

    it("hands out copies: changing an answer does not change the log", async () => {
      const { log } = await open();
      const id = unique("copies");
      await log.record(attempt(id));
      const first = await log.attempts(id);
      (first[0] as { ok: boolean }).ok = false;
      first.pop();
      expect(await log.attempts(id)).toEqual([attempt(id)]);
    });

    it("still has every attempt after a reopen", async () => {
      const subject = await open();
      const id = unique("reopen");
      await subject.log.record(attempt(id, { ok: false, error: "down" }));
      await subject.log.record(attempt(id, { attempt: 2, at: at(30_000) }));
      const again = await subject.reopen();
      expect(await again.attempts(id)).toEqual([
        attempt(id, { ok: false, error: "down" }),
        attempt(id, { attempt: 2, at: at(30_000) }),
      ]);
    });

    it("under deliver, after a reopen: a channel that accepted is skipped, a failed one is retried", async () => {
      const subject = await open();
      const n = notification(unique("deliver"));
      const up = countingChannel("up");
      const flaky = countingChannel("flaky");
      flaky.down = true;
      const opts = { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} };
      const first = await deliver(n, [up, flaky], subject.log, opts);
      expect(first.delivered).toBe(false);
      expect(first.logErrors).toEqual([]);

      flaky.down = false;
      const log = await subject.reopen();
      const second = await deliver(n, [up, flaky], log, opts);
      expect(second.delivered).toBe(true);
      expect(second.channels).toMatchObject([
        { channel: "up", ok: true, attempts: 0, alreadyDelivered: true },
        { channel: "flaky", ok: true, attempts: 1, alreadyDelivered: false },
      ]);
      expect(up.sent).toEqual([n.id]);
      expect(flaky.sent).toEqual([n.id, n.id, n.id]);
      const flakyAttempts = (await log.attempts(n.id)).filter((x) => x.channel === "flaky");
      expect(flakyAttempts.map((x) => [x.attempt, x.ok])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);

      // Delivered everywhere: a third call sends nothing at all.
      const third = await deliver(n, [up, flaky], await subject.reopen(), opts);
      expect(third.delivered).toBe(true);
      expect(third.channels.every((c) => c.alreadyDelivered)).toBe(true);
      expect([up.sent.length, flaky.sent.length]).toEqual([1, 3]);
    });

    it("records a notification muted, not sent: `muted` comes back after a reopen, and deliver still sends", async () => {
      const subject = await open();
      const n = notification(unique("muted"));
      const held: DeliveryAttempt = {
        notificationId: n.id,
        channel: "*",
        attempt: 0,
        at: at(0),
        ok: false,
        durationMs: 0,
        muted: {
          by: "account_no_access|123456789012",
          reason: "account prod is no_access: its collector failures are held back",
        },
      };
      await subject.log.record(held);
      expect(await subject.log.attempts(n.id)).toEqual([held]);
      const log = await subject.reopen();
      expect(await log.attempts(n.id)).toEqual([held]);
      // Unmuted later: the same id is sent, as attempt 1 of the channel (the muted record is no attempt).
      const up = countingChannel("up");
      const out = await deliver(n, [up], log, { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 });
      expect(out.delivered).toBe(true);
      const after = await log.attempts(n.id);
      expect(after.find((x) => x.channel === "up")).toMatchObject({ attempt: 1, ok: true });
      expect("muted" in (after.find((x) => x.channel === "up") as DeliveryAttempt)).toBe(false);
    });
  });
}
