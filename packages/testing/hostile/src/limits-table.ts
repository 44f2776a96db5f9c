import { HTTP_LIMITS, type LimitRow } from "@shared/http";

/** One table in Markdown, grouped by area in the order given; the docs check compares it with docs/limits.md. */
export function renderLimitsTable(rows: readonly LimitRow[]): string {
  const out = ["| area | field | limit | beyond it | set with |", "| --- | --- | --- | --- | --- |"];
  for (const r of rows) {
    const limit = `${r.limit.toLocaleString("en-US")} ${r.unit}`;
    const status = r.status === 0 ? "" : `\`${r.status}\``;
    const beyond = [status, r.note ?? ""].filter((s) => s !== "").join(": ");
    const env = r.env === undefined ? "" : `\`${r.env}\``;
    // Fields go in code spans: `synonyms.<word>` would otherwise be read as an HTML tag.
    const field = `\`${r.field.replaceAll("`", "'")}\``;
    out.push(`| ${r.area} | ${field} | ${limit} | ${beyond.replaceAll("|", "\\|")} | ${env} |`);
  }
  return out.join("\n");
}

export { HTTP_LIMITS };
