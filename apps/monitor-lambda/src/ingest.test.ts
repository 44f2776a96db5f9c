import {
  openHttpRunStore,
  parseResourceEvent,
  RESOURCE_EVENT_KIND,
  type ResourceEvent,
  RunStoreUnavailable,
} from "@svcmon/monitor";
import { describe, expect, it } from "vitest";
import { EVENT_INGEST_MODULE, eventIngest } from "./event-ingest.ts";
import { createIngestHandler } from "./ingest.ts";
import { memoryLogger, sqsEvent, sqsRecord } from "./test-support.ts";

const event = (resource_id: string): ResourceEvent => ({
  kind: RESOURCE_EVENT_KIND,
  collector: "config_ec2",
  account_id: "111111111111",
  region: "eu-west-1",
  resource_type: "ec2_instance",
  resource_id,
  observed_at: 1_738_324_800_000,
  attributes: { instance_type: "t3.micro" },
});

/** The consumer's handler as a recording double: it keeps what it was handed, or refuses on demand. */
function recording(refuse: (e: ResourceEvent) => Error | null = () => null) {
  const stored: ResourceEvent[] = [];
  return {
    stored,
    handle: async (e: ResourceEvent) => {
      const error = refuse(e);
      if (error !== null) throw error;
      stored.push(e);
    },
  };
}

describe("svcmon-ingest on SQS events", () => {
  it("hands every valid event to the handler and reports only the messages it could not handle", async () => {
    const sink = recording((e) => (e.resource_id === "i-refused" ? new Error("constraint violated") : null));
    const log = memoryLogger();
    const handler = createIngestHandler({ parse: parseResourceEvent, handle: sink.handle, log });
    const res = await handler(
      sqsEvent(
        sqsRecord("m1", JSON.stringify(event("i-1"))),
        sqsRecord("m2", "not json", 3),
        sqsRecord("m3", JSON.stringify({ kind: RESOURCE_EVENT_KIND, collector: "config_ec2" })),
        sqsRecord("m4", JSON.stringify(event("i-refused"))),
        sqsRecord("m5", JSON.stringify(event("i-2"))),
      ),
    );
    expect(res).toEqual({
      batchItemFailures: [{ itemIdentifier: "m2" }, { itemIdentifier: "m3" }, { itemIdentifier: "m4" }],
    });
    expect(sink.stored.map((e) => e.resource_id)).toEqual(["i-1", "i-2"]);
    const malformed = log.lines.find((l) => l.fields?.message_id === "m2");
    expect(malformed).toMatchObject({
      level: "warn",
      fields: { receive_count: 3, errors: ["(body): the message body is not valid JSON"] },
    });
    expect(log.lines.find((l) => l.fields?.message_id === "m3")?.fields?.errors).toContain(
      "account_id: must be a non-empty string",
    );
    expect(log.lines.at(-1)).toMatchObject({
      message: "ingest batch done",
      fields: { received: 5, handled: 2, refused: 3 },
    });
  });

  it("stops calling the handler once the database is unreachable, and returns the rest of the batch", async () => {
    let calls = 0;
    const handler = createIngestHandler({
      parse: parseResourceEvent,
      handle: async () => {
        calls += 1;
        throw new RunStoreUnavailable("analytics database unavailable during insert: ECONNREFUSED");
      },
      log: memoryLogger(),
    });
    const res = await handler(
      sqsEvent(...["a", "b", "c"].map((id) => sqsRecord(id, JSON.stringify(event(`i-${id}`))))),
    );
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(["a", "b", "c"]);
    expect(calls).toBe(1);
  });

  it("answers an empty batch with no failures", async () => {
    const handler = createIngestHandler({
      parse: parseResourceEvent,
      handle: recording().handle,
      log: memoryLogger(),
    });
    expect(await handler(sqsEvent())).toEqual({ batchItemFailures: [] });
  });
});

describe("the deployed event handling", () => {
  it("parses the collectors' ResourceEvent and refuses to store it until the store handler is wired", async () => {
    // A store over HTTP that is never called (nothing connects until a query).
    const { parse, handle } = eventIngest(openHttpRunStore({ url: "http://127.0.0.1:9" }));
    const parsed = parse(JSON.stringify(event("i-9")));
    expect(parsed).toEqual({ ok: true, value: event("i-9") });
    await expect(handle(event("i-9"))).rejects.toThrow(EVENT_INGEST_MODULE);
  });
});
