import { describe, expect, it } from "vitest";
import { type CurSource, curFormatOf, fileSource, tableFunction } from "./cur-source.ts";

describe("curFormatOf", () => {
  it.each<[string, ReturnType<typeof curFormatOf>]>([
    ["report-00001.csv.gz", { format: "CSVWithNames", compression: "gzip" }],
    ["REPORT.CSV.GZIP", { format: "CSVWithNames", compression: "gzip" }],
    ["plain.csv", { format: "CSVWithNames", compression: "none" }],
    ["export-00001.snappy.parquet", { format: "Parquet", compression: "none" }],
    [
      "https://b.s3.us-east-1.amazonaws.com/cur/x.parquet?versionId=3",
      { format: "Parquet", compression: "none" },
    ],
    ["report.csv.zip", null],
    ["manifest.json", null],
  ])("%s", (name, format) => {
    expect(curFormatOf(name)).toEqual(format);
  });
});

describe("tableFunction", () => {
  const url =
    "https://svcmon-cur.s3.us-east-1.amazonaws.com/cur/svcmon/20250501-20250601/svcmon-00001.csv.gz";

  it("file(): chDB and a server's user_files; quotes escaped", () => {
    expect(
      tableFunction({ kind: "file", path: "/data/it's.csv.gz" }, "CSVWithNames", "`a` String", "gzip"),
    ).toBe("file('/data/it\\'s.csv.gz', 'CSVWithNames', '`a` String', 'gzip')");
    expect(tableFunction({ kind: "file", path: "/d/x.parquet" }, "Parquet")).toBe(
      "file('/d/x.parquet', 'Parquet')",
    );
  });

  it("fileSource makes a relative path absolute (chDB would resolve it against the working directory)", () => {
    const s = fileSource("reports/x.csv.gz");
    expect(s.kind === "file" && s.path.startsWith("/") && s.path.endsWith("/reports/x.csv.gz")).toBe(true);
  });

  it.each<[string, CurSource, string]>([
    [
      "s3() with the server's own credentials (IAM role)",
      { kind: "s3", url },
      `s3('${url}', 'CSVWithNames', '\`lineItem/UnblendedCost\` String', 'gzip')`,
    ],
    [
      "s3() anonymous",
      { kind: "s3", url, auth: { kind: "nosign" } },
      `s3('${url}', NOSIGN, 'CSVWithNames', '\`lineItem/UnblendedCost\` String', 'gzip')`,
    ],
    [
      "s3() through a named collection (keys never in the query text)",
      { kind: "s3", url, auth: { kind: "named_collection", name: "cur_bucket" } },
      `s3(cur_bucket, url = '${url}', format = 'CSVWithNames', structure = '\`lineItem/UnblendedCost\` String', compression_method = 'gzip')`,
    ],
  ])("%s", (_name, source, sql) => {
    expect(tableFunction(source, "CSVWithNames", "`lineItem/UnblendedCost` String", "gzip")).toBe(sql);
  });

  it("refuses a named collection that is not an identifier", () => {
    expect(() =>
      tableFunction(
        { kind: "s3", url, auth: { kind: "named_collection", name: "x); DROP TABLE y; --" } },
        "Parquet",
      ),
    ).toThrow(/not a valid identifier/);
  });
});
