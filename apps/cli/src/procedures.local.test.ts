// The operating procedures against `local`: the real `npm start` stack in a child process and
// the real `relevance` bin in another, sharing DATA_DIR, PORT and ADMIN_TOKEN as an operator would.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN, call, type RunningStack, spawnStack } from "@apps/local/test-support";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportArtifact, oneLine, relevance as run } from "./test-support.ts";

const DAY = 24 * 60 * 60 * 1000;
const DOCS = [
  { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
  { id: 2, title: "Red leather shoes", tags: ["shoes"] },
  { id: 3, title: "Blue socks", tags: ["socks"] },
];

interface Local {
  dataDir: string;
  work: string;
  stack: RunningStack;
  account: string;
  apiKey: string;
}

/** A stack with one account, the indexes given (with documents) and the alias catalog → products. */
async function startLocal(indexes: string[], dataDir = mkdtempSync(join(tmpdir(), "relevance-local-"))) {
  const stack = await spawnStack({ DATA_DIR: dataDir });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const created = await call(stack.url, "POST", "/api/v1/admin/accounts", { name: "Ops" }, admin);
  const { systemAccountId: account, apiKey } = created.body as { systemAccountId: string; apiKey: string };
  const key = { "x-api-key": apiKey };
  for (const name of indexes) {
    await call(stack.url, "POST", "/api/v1/indexes", { name }, key);
    await call(stack.url, "POST", `/api/v1/indexes/${name}/documents`, DOCS, key);
  }
  await call(stack.url, "PUT", "/api/v1/aliases/catalog", { index: "products" }, key);
  return { dataDir, work: mkdtempSync(join(tmpdir(), "relevance-work-")), stack, account, apiKey };
}

const envOf = (l: Local, extra: Record<string, string> = {}) => ({
  DATA_DIR: l.dataDir,
  PORT: new URL(l.stack.url).port,
  ADMIN_TOKEN,
  ...extra,
});

const later = (ms: number) => new Date(Date.now() + ms).toISOString();

describe("relevance procedures against local (the npm start stack)", () => {
  let l: Local;
  const id = (v: number, index = "products") => `${l.account}:${index}:v${v}`;
  const relevance = (args: string[], extra: Record<string, string> = {}) =>
    run(l.work, args, envOf(l, extra));
  const env = ["--env", "local"];
  const target = (index = "products") => ["--account", l.account, "--index", index];
  const withKey = () => ["--api-key", l.apiKey];
  const fields = ["--title-field", "title", "--tags-field", "tags"];
  const configOf = async (index: string) =>
    JSON.parse((await relevance(["config", "get", ...env, ...target(index), "--json"])).stdout)
      .relevanceTriggerConfig;
  const modelKeys = async () => {
    const db = openDatabase(join(l.dataDir, "kv.db"));
    try {
      return await new SqliteKv(db).list(`relevance_model:${l.account}:`);
    } finally {
      db.close();
    }
  };
  const record = async (index: string) => {
    const db = openDatabase(join(l.dataDir, "settings.db"));
    try {
      return await new SqliteSettingsTable(db).get(l.account, `INDEX#${index}`);
    } finally {
      db.close();
    }
  };

  /**
   * A day passes for the stores: every time they keep for the account (the records' history of
   * switches, each model key's write time) moves back by `ms`. The CLI then measures the grace
   * period on the real clock, as an operator's delete does.
   */
  const age = (ms: number) => {
    const back = (iso: string) => new Date(Date.parse(iso) - ms).toISOString();
    const settings = openDatabase(join(l.dataDir, "settings.db"));
    try {
      const rows = settings.prepare("SELECT sk, attributes FROM items WHERE pk = ?").all(l.account) as {
        sk: string;
        attributes: string;
      }[];
      for (const row of rows) {
        const attributes = JSON.parse(row.attributes);
        const history = attributes.relevance_model_history as Record<string, string> | undefined;
        if (history === undefined) continue;
        for (const [model, at] of Object.entries(history)) history[model] = back(at);
        settings
          .prepare("UPDATE items SET attributes = ? WHERE pk = ? AND sk = ?")
          .run(JSON.stringify(attributes), l.account, row.sk);
      }
    } finally {
      settings.close();
    }
    const kv = openDatabase(join(l.dataDir, "kv.db"));
    try {
      const rows = kv
        .prepare("SELECT key, updated_at FROM kv WHERE key LIKE ?")
        .all(`relevance_model:${l.account}:%`) as { key: string; updated_at: string }[];
      for (const row of rows)
        kv.prepare("UPDATE kv SET updated_at = ? WHERE key = ?").run(back(row.updated_at), row.key);
    } finally {
      kv.close();
    }
  };

  beforeAll(async () => {
    l = await startLocal(["products", "shoes"]);
    for (const v of [1, 2, 3, 4]) await exportArtifact(l.work, id(v), `v${v}.json`);
  }, 60_000);
  afterAll(async () => {
    await l?.stack.kill("SIGTERM");
  });

  it("model upload validates, puts and reads back; refuses an overwrite, a mismatching id and a broken artifact", async () => {
    const up = await relevance(["model", "upload", ...env, "--model-id", id(1), "--file", "v1.json"]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/^checked v1\.json: .*:products:v1, index products, 30 trees, .*golden rows/);
    expect(up.stdout).toContain(`uploaded relevance_model:${id(1)} (13.4 KB), read back and compared`);
    expect(await modelKeys()).toEqual([`relevance_model:${id(1)}`]);

    const again = await relevance(["model", "upload", ...env, "--model-id", id(1), "--file", "v1.json"]);
    expect(again.code).toBe(1);
    expect(oneLine(again)).toEqual([
      `relevance model upload: relevance_model:${id(1)} already exists (it holds these same bytes: the upload already happened); versions are never overwritten: export the model under a new version`,
    ]);

    const mismatch = await relevance(["model", "upload", ...env, "--model-id", id(3), "--file", "v2.json"]);
    expect(mismatch.code).toBe(1);
    expect(oneLine(mismatch)).toEqual([
      `relevance model upload: v2.json carries modelId ${id(2)}, not ${id(3)}; export it again with --model-id ${id(3)}`,
    ]);

    const broken = JSON.parse(readFileSync(join(l.work, "v2.json"), "utf8"));
    broken.trees[0].left[0] = 999;
    writeFileSync(join(l.work, "broken.json"), JSON.stringify(broken));
    const bad = await relevance(["model", "upload", ...env, "--model-id", id(2), "--file", "broken.json"]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad)).toHaveLength(1);
    expect(bad.stderr).toMatch(
      /broken\.json does not load as a model artifact: trees\[0\]\.left\[0\]: child index 999/,
    );
    expect(await modelKeys()).toEqual([`relevance_model:${id(1)}`]);
  });

  it("model get shows the first bytes and a summary, and checks that the artifact loads", async () => {
    const got = await relevance(["model", "get", ...env, "--model-id", id(1)]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(
      `relevance_model:${id(1)}: 13.4 KB, starts "{\\"format\\":\\"relevance-model\\"`,
    );
    expect(got.stdout).toContain(
      'loads: 30 trees, 9 features, trained on titleField "title", tagsField "tags"',
    );
    const json = JSON.parse(
      (await relevance(["model", "get", ...env, "--model-id", id(1), "--json"])).stdout,
    );
    expect(json).toMatchObject({
      ok: true,
      trees: 30,
      trainedOn: { titleField: "title", tagsField: "tags" },
    });
    const absent = await relevance(["model", "get", ...env, "--model-id", id(9)]);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toBe(
      `relevance model get: no artifact under relevance_model:${id(9)} in local: check --model-id, or upload it with relevance model upload\n`,
    );
  });

  it("config set prints the API's warnings, get reads the config, disable removes it", async () => {
    const warned = await relevance([
      "config",
      "set",
      ...env,
      ...target("catalog"),
      "--model-id",
      id(1),
      "--title-field",
      "name",
      "--tags-field",
      "tags",
    ]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(
      'warning: the model was trained with titleField "title", not "name"; its title features will be wrong\n',
    );
    expect(warned.stdout).toMatch(
      /^set .*\/catalog: relevanceTriggerConfig \{modelId .*:products:v1, titleField "name"/,
    );

    const set = await relevance([
      "config",
      "set",
      ...env,
      ...target("catalog"),
      "--model-id",
      id(1),
      ...fields,
    ]);
    expect([set.code, set.stderr]).toEqual([0, ""]);
    expect(await configOf("catalog")).toEqual({ modelId: id(1), titleField: "title", tagsField: "tags" });

    const disabled = await relevance(["config", "disable", ...env, ...target("catalog")]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toMatch(/disabled scoring on .*\/catalog .*the artifact stays in KV/);
    expect(await configOf("catalog")).toBeNull();

    for (const index of ["catalog", "products"])
      expect(
        (await relevance(["config", "set", ...env, ...target(index), "--model-id", id(1), ...fields])).code,
      ).toBe(0);

    const otherIndex = await relevance([
      "config",
      "set",
      ...env,
      ...target("products"),
      "--model-id",
      id(1, "shoes"),
      ...fields,
    ]);
    expect(otherIndex.code).toBe(1);
    expect(otherIndex.stderr).toMatch(/is a model of index shoes, and products is not an alias of shoes\n$/);
  });

  it("config edit-table writes snake_case with NULL and the history; the exporter copies it; verify fails without the artifact", async () => {
    const args = (v: number) => [
      "config",
      "edit-table",
      ...env,
      ...target("shoes"),
      "--model-id",
      id(v, "shoes"),
    ];
    const edit = await relevance([...args(1), "--title-field", "title", "--tags-field", "null"]);
    expect(edit.code).toBe(0);
    expect(edit.stdout).toContain(
      `wrote relevance_trigger_config {"model_id":"${id(1, "shoes")}","title_field":"title","tags_field":null} to pk ${l.account}, sk INDEX#shoes`,
    );
    expect(edit.stderr).toBe(
      `warning: no model artifact under relevance_model:${id(1, "shoes")} yet; the index is not scored until it is uploaded\n`,
    );

    const verify = await relevance(["verify", ...env, ...target("shoes"), ...withKey()]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain(
      `KV copy ${l.account}-shoes has relevance_trigger_config {"model_id":"${id(1, "shoes")}"`,
    );
    expect(oneLine(verify)).toEqual([
      `relevance verify: shoes names ${id(1, "shoes")}, but there is no artifact under relevance_model:${id(1, "shoes")}: upload it with relevance model upload; once fixed, run verify again (or with a longer --timeout)`,
    ]);

    expect((await relevance([...args(2), "--title-field", "title", "--tags-field", "null"])).code).toBe(0);
    const item = await record("shoes");
    expect(item?.attributes.relevance_trigger_config).toEqual({
      model_id: id(2, "shoes"),
      title_field: "title",
      tags_field: null,
    });
    expect(Object.keys(item?.attributes.relevance_model_history as object)).toEqual([id(1, "shoes")]);

    const missing = await relevance([
      "config",
      "edit-table",
      ...env,
      ...target("nothere"),
      "--model-id",
      id(1, "nothere"),
      ...fields,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `relevance config edit-table: no settings record INDEX#nothere for account ${l.account} in local: check --account and --index\n`,
    );
  });

  it("verify confirms that the configured model serves, through the index and the alias", async () => {
    for (const index of ["products", "catalog"]) {
      const r = await relevance(["verify", ...env, ...target(index), ...withKey()]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(
          `search on ${index}: relevanceScore [0-9.e-]+ from ${id(1)} \\(the configured model\\)\\n$`,
        ),
      );
    }
    const json = JSON.parse(
      (await relevance(["verify", ...env, ...target(), ...withKey(), "--json"])).stdout,
    );
    expect(json).toMatchObject({ ok: true, modelId: id(1), copyKey: `${l.account}-products` });
    expect(json.steps.map((s: { step: string }) => s.step)).toEqual(["copy", "search"]);
  });

  it("rollout refuses a file without the next model id, then switches the index and its alias and confirms", async () => {
    const skip = await relevance([
      "rollout",
      ...env,
      ...target(),
      "--file",
      "v3.json",
      ...withKey(),
      "--json",
    ]);
    expect(skip.code).toBe(1);
    expect(JSON.parse(skip.stdout)).toMatchObject({ ok: false, command: "rollout" });
    expect(oneLine(skip)).toEqual([
      `relevance rollout: v3.json carries modelId ${id(3)}, but the next version of ${l.account}:products is ${id(2)} (highest so far v1): export it again with --model-id ${id(2)}`,
    ]);
    expect(await modelKeys()).toEqual([`relevance_model:${id(1)}`]);

    const r = await relevance(["rollout", ...env, ...target(), "--file", "v2.json", ...withKey()]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^checked v2\.json: /),
      `products is on ${id(1)}; rolling out ${id(2)} to products, catalog`,
      `search on products answers with this API key (now relevanceScore from ${id(1)})`,
      `uploaded relevance_model:${id(2)} (13.4 KB), read back and compared`,
      expect.stringMatching(new RegExp(`^switched products: ${id(1)} → ${id(2)} \\(version \\d+\\)$`)),
      expect.stringMatching(new RegExp(`^switched catalog: ${id(1)} → ${id(2)} \\(version \\d+\\)$`)),
      expect.stringMatching(/^KV copy .*-products has/),
      expect.stringMatching(new RegExp(`^search on products: relevanceScore .* from ${id(2)}`)),
      expect.stringMatching(/^KV copy .*-catalog has/),
      expect.stringMatching(new RegExp(`^search on catalog: relevanceScore .* from ${id(2)}`)),
      expect.stringMatching(
        new RegExp(
          `^${id(2)} serves products, catalog; relevance_model:${id(1)} stays for rollback: delete it after `,
        ),
      ),
    ]);
    expect(await configOf("products")).toMatchObject({ modelId: id(2) });
    expect(await configOf("catalog")).toMatchObject({ modelId: id(2) });
    expect((await relevance(["model", "get", ...env, "--model-id", id(1)])).code).toBe(0);
  });

  it("rollback switches the index and its alias back while the old key exists", async () => {
    const r = await relevance(["rollback", ...env, ...target(), "--to", id(1), ...withKey(), "--json"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ ok: true, from: id(2), to: id(1), records: ["products", "catalog"] });
    expect(json.steps.filter((s: { step: string }) => s.step === "search")).toHaveLength(2);
    expect(await configOf("catalog")).toMatchObject({ modelId: id(1) });
  });

  it("model delete is refused while a record names the model or within 24 h of the switch away, allowed after", async () => {
    const named = await relevance(["model", "delete", ...env, "--model-id", id(1)]);
    expect(named.code).toBe(1);
    expect(oneLine(named)).toEqual([
      `relevance model delete: refused: ${id(1)} is named by catalog, products; switch them to another model first (relevance rollout or rollback)`,
    ]);
    const recent = await relevance(["model", "delete", ...env, "--model-id", id(2)]);
    expect(recent.code).toBe(1);
    expect(recent.stderr).toMatch(
      new RegExp(
        `^relevance model delete: refused: catalog, products stopped naming ${id(2)} less than 24 h ago \\(last at .*\\); delete it after .*\\n$`,
      ),
    );
    expect(await modelKeys()).toHaveLength(2);

    // A rehearsed tomorrow deletes nothing: the grace period of a delete runs on the real clock.
    const rehearsed = await relevance(["model", "delete", ...env, "--model-id", id(2)], {
      RELEVANCE_NOW: later(DAY + 60_000),
    });
    expect(rehearsed.code).toBe(1);
    expect(oneLine(rehearsed)).toEqual([
      "relevance model delete: RELEVANCE_NOW is set: it only rehearses what prune would delete at that time (prune without --yes); nothing is deleted while it is set: unset RELEVANCE_NOW to delete",
    ]);
    expect(await modelKeys()).toHaveLength(2);

    age(DAY + 60_000);
    const tomorrow = await relevance(["model", "delete", ...env, "--model-id", id(2)]);
    expect(tomorrow.code).toBe(0);
    expect(tomorrow.stdout).toContain(`deleted relevance_model:${id(2)} (13.4 KB); it no longer reads back`);
    expect(await modelKeys()).toEqual([`relevance_model:${id(1)}`]);

    const gone = await relevance(["rollback", ...env, ...target(), "--to", id(2), ...withKey()]);
    expect(gone.stderr).toBe(
      `relevance rollback: relevance_model:${id(2)} is absent in local: cannot roll back to it; upload it first (relevance model upload) or pick another --to\n`,
    );
  });

  it("prune keeps what is named, in its grace period or staged; a dry run without --yes; deletes with --yes", async () => {
    // v2 was configured once (its history counts): the next version is v3.
    expect((await relevance(["rollout", ...env, ...target(), "--file", "v3.json", ...withKey()])).code).toBe(
      0,
    );
    expect(
      (await relevance(["model", "upload", ...env, "--model-id", id(4), "--file", "v4.json"])).code,
    ).toBe(0);

    const today = await relevance(["prune", ...env, ...target()]);
    expect(today.code).toBe(0);
    expect(today.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^keep relevance_model:${id(1)}: in the 24 h grace period until `)),
      `keep relevance_model:${id(3)}: named by catalog, products`,
      `keep relevance_model:${id(4)}: newer than any version ever configured (a staged upload)`,
      "nothing to delete",
    ]);

    const tomorrow = { RELEVANCE_NOW: later(DAY + 60_000) };
    const dry = await relevance(["prune", ...env, ...target()], tomorrow);
    expect(dry.stdout).toContain(
      `would delete relevance_model:${id(1)}: old, named by no record, past the grace period`,
    );
    expect(dry.stdout).toContain("dry run: nothing deleted; run again with --yes to delete 1 key(s)");
    expect(await modelKeys()).toHaveLength(3);

    // Left exported from the rehearsal, RELEVANCE_NOW cannot make --yes delete inside today's grace.
    const early = await relevance(["prune", ...env, ...target(), "--yes"], tomorrow);
    expect(early.code).toBe(1);
    expect(oneLine(early)).toEqual([
      "relevance prune: RELEVANCE_NOW is set: it only rehearses what prune would delete at that time (prune without --yes); nothing is deleted while it is set: unset RELEVANCE_NOW to delete",
    ]);
    expect(await modelKeys()).toHaveLength(3);

    age(DAY + 60_000);
    const yes = await relevance(["prune", ...env, ...target(), "--yes", "--json"]);
    expect(yes.code).toBe(0);
    expect(JSON.parse(yes.stdout)).toMatchObject({ ok: true, dryRun: false, deleted: [id(1)] });
    expect(await modelKeys()).toEqual([`relevance_model:${id(3)}`, `relevance_model:${id(4)}`]);
  });

  it("bad input: one line on stderr, a non-zero exit, nothing written", async () => {
    const before = await modelKeys();
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [
        ["model", "upload", "--env", "qa", "--model-id", id(5), "--file", "v1.json"],
        {},
        2,
        /unknown environment "qa"/,
      ],
      [
        ["model", "upload", ...env, "--model-id", id(5), "--file", "nope.json"],
        {},
        1,
        /cannot read nope\.json: no such file/,
      ],
      [
        ["model", "upload", ...env, "--model-id", "products-v5", "--file", "v1.json"],
        {},
        2,
        /--model-id must be <account>:<index>:v<n>/,
      ],
      [["config", "get", ...env, ...target()], { ADMIN_TOKEN: "" }, 1, /ADMIN_TOKEN is not set/],
      [["prune", ...env, ...target("bad name"), "--yes"], {}, 2, /--index must be 1 to 64 characters/],
      [["rollout", ...env, ...target(), "--file", "v1.json"], {}, 2, /--api-key is required/],
      [
        ["model", "get", ...env, "--model-id", id(3)],
        { DATA_DIR: join(l.work, "no-stack") },
        1,
        /holds no local stack data/,
      ],
      [
        ["model", "get", ...env, "--model-id", id(3)],
        { RELEVANCE_NOW: "tomorrow" },
        1,
        /RELEVANCE_NOW must be an ISO time/,
      ],
    ];
    for (const [args, extra, code, message] of cases) {
      const r = await relevance(args, extra);
      expect(r.code, args.join(" ")).toBe(code);
      expect(oneLine(r), args.join(" ")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect(await modelKeys()).toEqual(before);
    expect(existsSync(join(l.work, "no-stack"))).toBe(false);
  });
});

describe("a rollout whose confirmation fails (the settings exporter is stopped)", () => {
  let l: Local;
  const id = (v: number) => `${l.account}:products:v${v}`;
  const relevance = (args: string[]) => run(l.work, args, envOf(l));
  afterAll(async () => {
    await l?.stack.kill("SIGTERM");
  });

  it("stays on the old model, keeps the new artifact uploaded and says how to retry; the retry resumes", async () => {
    l = await startLocal(["products"]);
    const env = ["--env", "local"];
    const target = ["--account", l.account, "--index", "products"];
    for (const v of [1, 2]) await exportArtifact(l.work, id(v), `v${v}.json`);
    expect(
      (await relevance(["model", "upload", ...env, "--model-id", id(1), "--file", "v1.json"])).code,
    ).toBe(0);
    const set = [
      "config",
      "set",
      ...env,
      ...target,
      "--model-id",
      id(1),
      "--title-field",
      "title",
      "--tags-field",
      "tags",
    ];
    expect((await relevance(set)).code).toBe(0);
    expect((await relevance(["verify", ...env, ...target, "--api-key", l.apiKey])).code).toBe(0);

    // The same data, served by a stack whose exporter does not run: the KV copy never changes.
    await l.stack.kill("SIGTERM");
    l.stack = await spawnStack({ DATA_DIR: l.dataDir, EXPORTER: "0" });
    const rollout = ["rollout", ...env, ...target, "--file", "v2.json", "--api-key", l.apiKey];
    const failed = await relevance([...rollout, "--timeout", "1"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/switched products: .* → .*:v2/);
    expect(failed.stdout).toMatch(/switched products back: .*:v2 → .*:v1/);
    expect(oneLine(failed)).toEqual([
      `relevance rollout: not confirmed: the KV copy ${l.account}-products has {"model_id":"${id(1)}","title_field":"title","tags_field":"tags"}, not the config of products, after 1 s; the settings exporter may be behind (check its logs). switched products back: products stays on ${id(1)}; relevance_model:${id(2)} stays uploaded. Fix the cause, then retry: relevance rollout --env local --account ${l.account} --index products --file v2.json --api-key <key>`,
    ]);
    const config = JSON.parse((await relevance(["config", "get", ...env, ...target, "--json"])).stdout);
    expect(config.relevanceTriggerConfig.modelId).toBe(id(1));
    expect((await relevance(["model", "get", ...env, "--model-id", id(2)])).code).toBe(0);

    // Exporter back: the retry resumes with the uploaded artifact.
    await l.stack.kill("SIGTERM");
    l.stack = await spawnStack({ DATA_DIR: l.dataDir });
    const retried = await relevance(rollout);
    expect(retried.stderr).toBe("");
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(
      `relevance_model:${id(2)} is already uploaded with these bytes (resuming)`,
    );
    expect(retried.stdout).toMatch(new RegExp(`search on products: relevanceScore .* from ${id(2)}`));
  }, 60_000);
});
