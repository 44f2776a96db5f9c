/** A three-document index and its `tags` and `price` columns, built as the engine builds them: for the snapshot tests. */
import { ColumnBuilder } from "../columns.ts";
import type { SnapshotContent } from "../snapshot-parts.ts";
import { buildTypedIndex } from "../typed-index.ts";

const DOCS = [
  { id: "a", title: "red shoes", tags: ["shoes", "Red"], price: 10 },
  { id: "b", title: "blue jacket", tags: ["jackets"], price: 25.5 },
  { id: "c", title: "red red jacket", price: -0 },
];

export function smallIndex(): SnapshotContent {
  const index = buildTypedIndex(
    DOCS.map((doc) => [doc.id, doc]),
    {
      fields: "strings",
      text: (doc, f) => {
        const v = doc[f];
        return Array.isArray(v) ? v.join(" ") : typeof v === "string" ? v : undefined;
      },
      tokenize: (text) => text.toLowerCase().split(" "),
    },
  );
  const columns = ["tags", "price"].map((attribute) => {
    const builder = new ColumnBuilder(attribute);
    for (const doc of DOCS) builder.add(doc);
    return builder.finish();
  });
  return { index, columns };
}
