// The step runner behind npm start's demo seeding: each step at most once per data folder.
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { SqliteStepLog } from "./demo-step-log.ts";
import { runPendingSteps, type Step } from "./demo-steps.ts";

const NAMES = ["a", "b", "c", "d", "e"];
const at = () => new Date("2026-11-25T12:00:00Z");

function counted() {
  const runs: string[] = [];
  const steps: Step<null>[] = NAMES.map((name) => ({
    name,
    async run() {
      runs.push(name);
    },
  }));
  return { runs, steps };
}

describe("runPendingSteps", () => {
  it.each([0, 1, 2, 3, 4])(
    "after an interruption following step %i, the next run does the rest, each step exactly once",
    async (k) => {
      const log = new SqliteStepLog(new DatabaseSync(":memory:"));
      const { runs, steps } = counted();
      const interrupted = {
        done: () => log.done(),
        record: (step: string, when: Date) => {
          log.record(step, when);
          if (step === NAMES[k]) throw new Error("killed");
        },
      };
      await expect(runPendingSteps(steps, interrupted, null, at)).rejects.toThrow("killed");
      expect([...log.done()].sort()).toEqual(NAMES.slice(0, k + 1));

      const second = await runPendingSteps(steps, log, null, at);
      expect(second).toEqual({ ran: NAMES.slice(k + 1), skipped: NAMES.slice(0, k + 1) });
      expect(runs).toEqual(NAMES);
      expect(log.entries().map((e) => e.step)).toEqual(NAMES);
    },
  );

  it("does not record a step that throws, and starts the next run with it", async () => {
    const log = new SqliteStepLog(new DatabaseSync(":memory:"));
    let fail = true;
    const runs: string[] = [];
    const steps: Step<null>[] = NAMES.map((name) => ({
      name,
      async run() {
        runs.push(name);
        if (name === "c" && fail) throw new Error("c failed");
      },
    }));
    await expect(runPendingSteps(steps, log, null, at)).rejects.toThrow("c failed");
    expect([...log.done()].sort()).toEqual(["a", "b"]);
    fail = false;
    expect((await runPendingSteps(steps, log, null, at)).ran).toEqual(["c", "d", "e"]);
    expect(runs).toEqual(["a", "b", "c", "c", "d", "e"]);
  });

  it("runs nothing once every step is recorded", async () => {
    const log = new SqliteStepLog(new DatabaseSync(":memory:"));
    const { runs, steps } = counted();
    await runPendingSteps(steps, log, null, at);
    expect(await runPendingSteps(steps, log, null, at)).toEqual({ ran: [], skipped: NAMES });
    expect(runs).toEqual(NAMES);
  });
});
