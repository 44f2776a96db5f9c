// The management calls of Meilisearch's official client, one sequence that both compositions of the
// customer API run (npm start's embedded stack, apps/local; the Lambda over DynamoDB and the
// Meilisearch double, apps/customer-lambda), so the two answer the same calls the same way.
import type { Meilisearch, MeilisearchApiError } from "meilisearch";
import { expect } from "vitest";

/**
 * The management calls of Meilisearch's official client on one new index: each answers as
 * Meilisearch would, or 422 naming what is not supported.
 */
export async function officialClientCalls(
  client: Meilisearch,
  name: string,
  interval: number,
): Promise<void> {
  const status = (error: unknown) => (error as MeilisearchApiError).response?.status;
  await client.createIndex(name, { primaryKey: "sku" }).waitTask({ interval });
  const index = client.index(name);
  await index
    .addDocuments([
      { sku: "a", title: "Oak table", price: 10 },
      { sku: "b", title: "Pine shelf", price: 20 },
      { sku: "c", title: "Walnut sofa", price: 30 },
    ])
    .waitTask({ interval });

  expect(await index.getDocument("a")).toEqual({ sku: "a", title: "Oak table", price: 10 });
  expect(await index.getDocument("a", { fields: ["title"] })).toEqual({ title: "Oak table" });
  expect(status(await index.getDocument("nope").catch((e: unknown) => e))).toBe(404);
  const fields = await index.getDocuments({ fields: ["sku"], limit: 10 });
  expect(fields.results).toEqual([{ sku: "a" }, { sku: "b" }, { sku: "c" }]);

  const merged = await index.updateDocuments([{ sku: "a", price: 12 }]).waitTask({ interval });
  expect(merged.status).toBe("succeeded");
  expect(await index.getDocument("a")).toEqual({ sku: "a", title: "Oak table", price: 12 });

  expect((await index.deleteDocument("c").waitTask({ interval })).status).toBe("succeeded");
  expect((await index.deleteDocuments(["b", "missing"]).waitTask({ interval })).status).toBe("succeeded");
  expect((await index.getDocuments()).results.map((d) => d.sku)).toEqual(["a"]);
  // Filters on documents are not supported: 422, nothing deleted.
  expect(status(await index.deleteDocuments({ filter: "price > 1" }).catch((e: unknown) => e))).toBe(422);
  expect(status(await index.getDocuments({ filter: "price > 1" }).catch((e: unknown) => e))).toBe(422);
  expect((await index.getStats()).numberOfDocuments).toBe(1);

  expect((await index.updateFilterableAttributes(["price"]).waitTask({ interval })).status).toBe("succeeded");
  expect(await index.getFilterableAttributes()).toEqual(["price"]);
  expect((await index.updateSynonyms({ couch: ["sofa"] }).waitTask({ interval })).status).toBe("succeeded");
  expect(await index.getSynonyms()).toEqual({ couch: ["sofa"] });
  expect((await index.updateTypoTolerance({ enabled: false }).waitTask({ interval })).status).toBe(
    "succeeded",
  );
  expect((await index.getTypoTolerance())?.enabled).toBe(false);
  expect((await index.getSettings()).filterableAttributes).toEqual(["price"]);
  await index.resetFilterableAttributes().waitTask({ interval });
  expect(await index.getFilterableAttributes()).toEqual([]);
  expect(status(await index.getPagination().catch((e: unknown) => e))).toBe(422);
  expect(status(await index.updateDistinctAttribute("sku").catch((e: unknown) => e))).toBe(422);
  await index.resetSettings().waitTask({ interval });
  const reset = await index.getSettings();
  expect(reset.synonyms).toEqual({});
  expect(reset.typoTolerance?.enabled).toBe(true);

  const succeeded = await client.tasks.getTasks({ statuses: ["succeeded"], indexUids: [name], limit: 3 });
  expect(succeeded.results).toHaveLength(3);
  expect(succeeded.results.every((t) => t.status === "succeeded" && t.indexUid === name)).toBe(true);
  expect(succeeded.next).not.toBeNull();
  const deletions = await client.tasks.getTasks({ types: ["documentDeletion"], indexUids: [name] });
  expect(deletions.results.map((t) => t.details?.deletedDocuments)).toEqual([1, 1]);

  expect((await index.deleteAllDocuments().waitTask({ interval })).status).toBe("succeeded");
  expect((await index.getStats()).numberOfDocuments).toBe(0);
  const stats = await client.getStats();
  expect(stats.indexes[name]).toMatchObject({ numberOfDocuments: 0 });
  expect(typeof stats.lastUpdate).toBe("string");
}
