/**
 * The contract of the RowSink port (runtime/simulated-cloud.ts) for resource rows: every adapter
 * runs it. `make` gives a fresh sink; `read` returns the ids stored so far (null when the adapter
 * keeps no rows, like CountingSink).
 */

import { describe, expect, it } from "vitest";
import { RESOURCES_TABLE, type ResourceRow, type RowSink } from "../index.ts";

export function resourceRow(id: string, over: Partial<ResourceRow> = {}): ResourceRow {
  return {
    resource_id: id,
    resource_type: "ec2_instance",
    arn: `arn:aws:ec2:us-east-1:111111111111:instance/${id}`,
    cloud_account_id: "111111111111",
    cloud_region: "us-east-1",
    tags: { team: "search", env: "prod" },
    attributes: { instance_type: "t3.micro", state: "running" },
    observed_at: Date.now() - 60_000,
    run_id: "3f1e9b7a-8c2d-4e5f-9a6b-7c8d9e0f1a2b",
    collector: "config_ec2",
    ...over,
  };
}

export function rowSinkContract(
  name: string,
  make: () => Promise<RowSink>,
  read: (sink: RowSink) => Promise<string[] | null>,
): void {
  describe(`RowSink contract: ${name}`, () => {
    it("write resolves with the number of rows written", async () => {
      const sink = await make();
      expect(await sink.write(RESOURCES_TABLE, [resourceRow("i-c1"), resourceRow("i-c2")])).toBe(2);
      const ids = await read(sink);
      if (ids !== null) expect([...ids].sort()).toEqual(["i-c1", "i-c2"]);
    });

    it("an empty write writes nothing and resolves with 0", async () => {
      const sink = await make();
      expect(await sink.write(RESOURCES_TABLE, [])).toBe(0);
      const ids = await read(sink);
      if (ids !== null) expect(ids).toEqual([]);
    });
  });
}
