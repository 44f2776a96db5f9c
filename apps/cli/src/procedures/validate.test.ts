import { DEFAULT_ARTIFACT_MAX_BYTES } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { type Io, UserError } from "../io.ts";
import { modelUpload } from "./model.ts";
import { artifactLimit } from "./validate.ts";

/** An Io whose files have a size but must never be read. */
function unreadable(sizes: Record<string, number>): Io & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    out: () => {},
    err: () => {},
    fileBytes: async (path) => sizes[path] ?? null,
    readText: async (path) => {
      reads.push(path);
      throw new Error(`${path} must not be read`);
    },
    writeTextAtomic: async () => {
      throw new Error("nothing may be written");
    },
  };
}

describe("model upload's size check", () => {
  it("refuses a file above 8 MiB from its size alone, before reading it, in one line naming size and limit", async () => {
    const io = unreadable({ "big.json": 26 * 1024 * 1024 });
    const flags = { "model-id": "acct:products:v1", file: "big.json" };
    const refused = modelUpload.prepare(flags, io);
    await expect(refused).rejects.toBeInstanceOf(UserError);
    await expect(refused).rejects.toThrow(
      `big.json: the artifact is ${26 * 1024 * 1024} bytes, above the limit of ${DEFAULT_ARTIFACT_MAX_BYTES} bytes (MODEL_MAX_BYTES)`,
    );
    expect(io.reads).toEqual([]);
  });

  it("takes the limit from --max-bytes over MODEL_MAX_BYTES, and refuses a bad value as a usage error", () => {
    expect(artifactLimit({}, {})).toBe(8 * 1024 * 1024);
    expect(artifactLimit({}, { MODEL_MAX_BYTES: "1048576" })).toBe(1024 * 1024);
    expect(artifactLimit({ "max-bytes": "2048" }, { MODEL_MAX_BYTES: "1048576" })).toBe(2048);
    for (const bad of ["0", "-1", "1e6", "8MB", String(25 * 1024 * 1024 + 1)]) {
      let error: unknown;
      try {
        artifactLimit({}, { MODEL_MAX_BYTES: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).exitCode).toBe(2);
    }
    expect(() => artifactLimit({ "max-bytes": "x" }, {})).toThrow(/--max-bytes/);
  });
});
