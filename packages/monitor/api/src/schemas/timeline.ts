/**
 * One timeline (`GET /api/system/timeline`): a collector's or an alert's runs, flips, notifications
 * with each channel's delivery result, silences and maintenance, in time order. docs/monitor-api.md.
 */
import { z } from "zod";
import { isoTime } from "./common.ts";

const edge = z.enum(["start", "end"]);

export const TimelineEventSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("run"),
      at: isoTime(),
      summary: z.string(),
      run: z.object({
        run_id: z.string(),
        collector: z.string(),
        cloud_account_id: z.string(),
        cloud_region: z.string(),
        status: z.string(),
        started_at: isoTime(),
        duration_ms: z.int().nullable(),
        error: z.string(),
      }),
    }),
    z.object({
      kind: z.literal("flip"),
      at: isoTime(),
      summary: z.string(),
      rule: z.string(),
      subject: z.string(),
      from: z.string().nullable(),
      to: z.string(),
      muted: z.boolean(),
    }),
    z.object({
      kind: z.literal("notification"),
      at: isoTime(),
      summary: z.string(),
      rule: z.string(),
      notification_id: z.string(),
      items: z.array(z.object({ subject: z.string(), kind: z.string() })),
      deliveries: z.array(
        z.object({
          channel: z.string(),
          attempt: z.int(),
          at: isoTime(),
          ok: z.boolean(),
          error: z.string().nullable(),
        }),
      ),
    }),
    z.object({
      kind: z.literal("silence"),
      at: isoTime(),
      summary: z.string(),
      silence_id: z.string(),
      edge,
      author: z.string(),
      reason: z.string(),
    }),
    z.object({
      kind: z.literal("window"),
      at: isoTime(),
      summary: z.string(),
      window_id: z.string(),
      edge,
      reason: z.string(),
    }),
  ])
  .meta({ id: "TimelineEvent" });

export const TimelineSchema = z
  .object({
    generated_at: isoTime(),
    about: z.union([
      z.object({ collector: z.string() }),
      z.object({ rule: z.string(), subject: z.string() }),
    ]),
    since: isoTime(),
    until: isoTime(),
    events: z.array(TimelineEventSchema).meta({ description: "Oldest first." }),
    truncated: z.boolean().meta({ description: "More events than `limit`: the newest are kept." }),
    sources: z
      .object({
        runs: z.boolean(),
        alerts: z.boolean(),
        deliveries: z.boolean(),
        silences: z.boolean(),
        maintenance: z.boolean(),
      })
      .meta({
        description:
          "Which stores were read; without a transition store there are no flips or notifications.",
      }),
  })
  .meta({ id: "Timeline" });
