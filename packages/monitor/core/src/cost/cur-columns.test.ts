import { describe, expect, it } from "vitest";
import { parseCsvLine, type ReportColumn, resolveCurColumns, tagKeyOfColumn } from "./cur-columns.ts";

const text = (names: string[]): ReportColumn[] => names.map((name) => ({ name, type: "String" }));

const LEGACY = [
  "identity/LineItemId",
  "bill/PayerAccountId",
  "bill/BillingPeriodStartDate",
  "lineItem/UsageAccountId",
  "lineItem/LineItemType",
  "lineItem/UsageStartDate",
  "lineItem/ProductCode",
  "lineItem/ResourceId",
  "lineItem/UnblendedCost",
  "lineItem/CurrencyCode",
  "product/servicecode",
  "resourceTags/user:svc:purpose",
  "resourceTags/user:team",
  "resourceTags/aws:cloudformation:stack-name",
];
const SNAKE = [
  "bill_payer_account_id",
  "bill_billing_period_start_date",
  "line_item_usage_account_id",
  "line_item_line_item_type",
  "line_item_usage_start_date",
  "line_item_product_code",
  "line_item_unblended_cost",
  "line_item_currency_code",
];

describe("resolveCurColumns", () => {
  it("legacy CSV header: fields by their slash names, tag columns in CUR key form", () => {
    const r = resolveCurColumns(text(LEGACY));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.fields.unblended_cost?.name).toBe("lineItem/UnblendedCost");
    expect(r.value.fields.service_code?.name).toBe("product/servicecode");
    expect(r.value.tagColumns.map((t) => [t.key, t.columns.map((c) => c.name)])).toEqual([
      ["user_svc_purpose", ["resourceTags/user:svc:purpose"]],
      ["user_team", ["resourceTags/user:team"]],
      ["aws_cloudformation_stack_name", ["resourceTags/aws:cloudformation:stack-name"]],
    ]);
    expect(r.value.tagsMap).toBeNull();
  });

  it("Athena-style legacy columns: resource_tags_user_svc_purpose; optional fields absent", () => {
    const r = resolveCurColumns(text([...SNAKE, "resource_tags_user_svc_purpose"]));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.fields.resource_id).toBeNull();
    expect(r.value.fields.line_item_id).toBeNull();
    expect(r.value.tagColumns).toEqual([
      { key: "user_svc_purpose", columns: [{ name: "resource_tags_user_svc_purpose", type: "String" }] },
    ]);
  });

  it("CUR 2.0: the resource_tags map", () => {
    const r = resolveCurColumns([
      ...text(SNAKE),
      { name: "resource_tags", type: "Map(String, Nullable(String))" },
    ]);
    expect(r.ok && r.value.tagsMap?.name).toBe("resource_tags");
    expect(r.ok && r.value.tagColumns).toEqual([]);
  });

  it("two columns of one tag key keep file order", () => {
    const r = resolveCurColumns(
      text([...SNAKE, "resourceTags/user:svc:purpose", "resource_tags_user_svc_purpose"]),
    );
    expect(r.ok && r.value.tagColumns[0]?.columns.map((c) => c.name)).toEqual([
      "resourceTags/user:svc:purpose",
      "resource_tags_user_svc_purpose",
    ]);
  });

  it("names every missing required column with both accepted names", () => {
    const r = resolveCurColumns(
      text(SNAKE.filter((n) => n !== "line_item_unblended_cost" && n !== "bill_payer_account_id")),
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        {
          path: "bill/PayerAccountId",
          message: "missing column (bill/PayerAccountId or bill_payer_account_id)",
        },
        {
          path: "lineItem/UnblendedCost",
          message: "missing column (lineItem/UnblendedCost or line_item_unblended_cost)",
        },
      ],
    });
  });

  it("a resource_tags column that is not a map is an error", () => {
    const r = resolveCurColumns(text([...SNAKE, "resource_tags"]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.path).toBe("resource_tags");
  });
});

describe("tagKeyOfColumn", () => {
  it.each<[string, string | null]>([
    ["resourceTags/user:svc:purpose", "user_svc_purpose"],
    ["resourceTags/user:Cost Center", "user_cost_center"],
    ["resourceTags/aws:createdBy", "aws_createdby"],
    ["resource_tags_user_svc_purpose", "user_svc_purpose"],
    ["resource_tags", null],
    ["resourceTags/", null],
    ["lineItem/ResourceId", null],
  ])("%s → %s", (column, key) => {
    expect(tagKeyOfColumn(column)).toBe(key);
  });
});

describe("parseCsvLine", () => {
  it.each<[string, string[]]>([
    ["a,b,c", ["a", "b", "c"]],
    ['"identity/LineItemId","lineItem/UnblendedCost"', ["identity/LineItemId", "lineItem/UnblendedCost"]],
    ['"a,b","c""d",', ["a,b", 'c"d', ""]],
    ["x,y\r", ["x", "y"]],
  ])("%s", (line, cells) => {
    expect(parseCsvLine(line)).toEqual(cells);
  });
});
