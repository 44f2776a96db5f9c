// The bounds of the customer API's Meilisearch-shaped management calls (one document, deletions,
// `fields`, `GET /tasks`): enforced by customer/document-edits.ts and customer/tasks.ts, documented
// from these rows (docs/limits.md), tried just beyond each by the hostile catalogue.

import type { LimitRow } from "@shared/http";

/**
 * Ids in one `POST …/documents/delete-batch`: the batch Meilisearch's clients send documents in, so a
 * deletion is never a bigger write than an upload.
 */
export const MAX_DELETE_IDS = 1000;
/** Field names in one `fields` (documents, one document, `documents/fetch`). */
export const MAX_FIELDS_ASKED = 1000;
/** Values in each list filter of `GET /tasks` (`uids`, `statuses`, `types`, `indexUids`). */
export const MAX_TASK_FILTER_ITEMS = 100;
/** Tasks per `GET /tasks` page (`limit`), as many as a documents page. */
export const MAX_TASKS_LIMIT = 1000;

/** The rows; `fieldNameChars` is the bound of one field name (limits.ts's attribute bound, passed in to keep the two files free of a cycle). */
export function managementLimitRows(fieldNameChars: number): LimitRow[] {
  const taskList = (field: string): LimitRow => ({
    area: "tasks",
    field,
    limit: MAX_TASK_FILTER_ITEMS,
    unit: "items",
    status: 422,
    note: "GET /tasks: comma-separated values of one filter",
  });
  return [
    {
      area: "documents",
      field: "ids",
      limit: MAX_DELETE_IDS,
      unit: "items",
      status: 422,
      note: "document ids in one POST …/documents/delete-batch; nothing is deleted beyond it",
    },
    {
      area: "documents",
      field: "fields",
      limit: MAX_FIELDS_ASKED,
      unit: "items",
      status: 422,
      note: "field names asked for in GET …/documents, GET …/documents/{id} and POST …/documents/fetch",
    },
    {
      area: "documents",
      field: "fields[]",
      limit: fieldNameChars,
      unit: "characters",
      status: 422,
      note: "each field name asked for",
    },
    taskList("uids"),
    taskList("statuses"),
    taskList("types"),
    taskList("indexUids"),
    {
      area: "tasks",
      field: "limit",
      limit: MAX_TASKS_LIMIT,
      unit: "items",
      status: 422,
      note: "GET /tasks page size, from 1 (default 20)",
    },
  ];
}
