/** The customer API's request shapes checked with zod (docs/api.md). */
import { INDEX_NAME } from "@relevance/settings";
import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../limits.ts";

const Name = z.string().regex(INDEX_NAME, "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -");
export const CreateIndex = z.strictObject({
  name: Name,
  primaryKey: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -")
    .optional(),
});
export const PutAlias = z.strictObject({ index: Name });
export const Page = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
});
