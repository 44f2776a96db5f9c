// Deletes old versions of an index's model: past the 24 h grace period and named by no record.
import { modelKey } from "@relevance/core";
import { UserError } from "../io.ts";
import { graceClock, storeTimes } from "./grace-clock.ts";
import { type Procedure, refuseDeleteWithMovedClock } from "./procedure.ts";
import { accountRecords, GRACE_MS, modelUse, versionKeys, versionPrefix, versionsSeen } from "./records.ts";
import { accountFlag, indexFlag } from "./validate.ts";

interface Decision {
  modelId: string;
  keep: boolean;
  reason: string;
}

export const prune: Procedure<{ account: string; index: string; yes: boolean }> = {
  name: "prune",
  summary: "delete old versions past the 24 h grace period that no record names; dry run without --yes",
  usage: "relevance prune --env E --account A --index I [--yes] [--json]",
  examples: [
    "relevance prune --env local --account acct_3f9c2a7b10de --index products",
    "relevance prune --env local --account acct_3f9c2a7b10de --index products --yes",
  ],
  flags: {
    account: { type: "string", required: true, help: "system account id" },
    index: { type: "string", required: true, help: "index whose relevance_model:<A>:<I>:v* keys are pruned" },
    yes: { type: "boolean", help: "delete; without it, only print what would be deleted" },
  },
  needsAdmin: false,
  async prepare(flags) {
    return { account: accountFlag(flags), index: indexFlag(flags), yes: flags.yes === true };
  },
  async run(ctx, { account, index, yes }) {
    const { env, report } = ctx;
    if (yes) refuseDeleteWithMovedClock(ctx);
    let clockNoted = false;
    const decide = async (): Promise<Decision[]> => {
      const keys = versionKeys(await env.kv.list(versionPrefix(account, index)), account, index);
      const records = await accountRecords(env.table, account);
      // The store's own record: when each key was written, and its clock (the grace period is not
      // measured on this machine's clock alone).
      const stored = await storeTimes(env.kv, versionPrefix(account, index));
      const clock = graceClock(ctx.now(), stored.storeNow, ctx.clockOverridden);
      if (clock.note !== null && !clockNoted) {
        report.step("clock", clock.note, { at: clock.at.toISOString(), source: clock.source });
        clockNoted = true;
      }
      const now = clock.at;
      // Versions above every version ever configured are staged uploads, not old ones.
      const newestConfigured = Math.max(0, ...versionsSeen(records, account, index));
      return keys.map((parts) => {
        const modelId = `${account}:${index}:v${parts.version}`;
        const use = modelUse(records, modelId, now);
        if (use.namedBy.length > 0)
          return { modelId, keep: true, reason: `named by ${use.namedBy.join(", ")}` };
        if (use.recentlyBy.length > 0) {
          const until = use.recentlyBy
            .map((r) => r.until)
            .sort()
            .at(-1);
          return { modelId, keep: true, reason: `in the 24 h grace period until ${until}` };
        }
        if (parts.version > newestConfigured)
          return { modelId, keep: true, reason: "newer than any version ever configured (a staged upload)" };
        // Written less than 24 h ago by the store's record (re-uploaded, or named and dropped by a
        // hand edit that left no history): too recent to be old, whatever the records say.
        const written = stored.times.get(modelKey(modelId));
        const writtenAt = written === undefined ? Number.NaN : Date.parse(written);
        if (!Number.isNaN(writtenAt) && now.getTime() - writtenAt < GRACE_MS)
          return {
            modelId,
            keep: true,
            reason: `written ${written} (the store's record), less than 24 h ago; old after ${new Date(writtenAt + GRACE_MS).toISOString()}`,
          };
        return { modelId, keep: false, reason: "old, named by no record, past the grace period" };
      });
    };
    const decisions = await decide();
    if (decisions.length === 0)
      report.step("list", `no keys ${versionPrefix(account, index)}* in ${env.name}`);
    for (const d of decisions) {
      report.step(
        d.keep ? "keep" : yes ? "delete" : "would delete",
        `${d.keep ? "keep" : yes ? "delete" : "would delete"} ${modelKey(d.modelId)}: ${d.reason}`,
        {
          modelId: d.modelId,
          keep: d.keep,
          reason: d.reason,
        },
      );
    }
    const doomed = decisions.filter((d) => !d.keep).map((d) => d.modelId);
    if (!yes) {
      report.step(
        "dry run",
        doomed.length === 0
          ? "nothing to delete"
          : `dry run: nothing deleted; run again with --yes to delete ${doomed.length} key(s)`,
      );
      return { account, index, dryRun: true, wouldDelete: doomed, decisions };
    }
    // Decide again right before deleting: a record may have started naming one meanwhile.
    const still = new Set((await decide()).filter((d) => !d.keep).map((d) => d.modelId));
    const deleted: string[] = [];
    for (const modelId of doomed) {
      if (!still.has(modelId)) {
        report.step("keep", `keep ${modelKey(modelId)}: it is in use again`);
        continue;
      }
      await env.kv.delete(modelKey(modelId));
      deleted.push(modelId);
    }
    const left: string[] = [];
    for (const id of deleted) if ((await env.kv.get(modelKey(id))) !== null) left.push(modelKey(id));
    if (left.length > 0)
      throw new UserError(`deleted, but still readable: ${left.join(", ")}; run prune again`);
    report.step(
      "verify",
      deleted.length === 0
        ? "nothing to delete"
        : `deleted ${deleted.length} key(s); none of them reads back`,
    );
    return { account, index, dryRun: false, deleted, decisions };
  },
};
