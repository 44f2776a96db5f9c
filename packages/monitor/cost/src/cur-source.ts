/**
 * Where a cost report file is and how ClickHouse reads it: `file()` on chDB (or on a server, from its
 * user_files), `s3()` on a ClickHouse server reading the report bucket. The report is never read by
 * Node: the database reads it, so 1 M lines cost no JS heap.
 */
import { isAbsolute, resolve } from "node:path";
import { lit } from "./sql.ts";

/**
 * How the server authenticates to S3: its own credentials (IAM role, `use_environment_credentials`),
 * anonymous (public test buckets), or a named collection holding the keys (so no secret is ever
 * part of a query's text or the query log).
 */
export type S3Auth =
  | { kind: "environment" }
  | { kind: "nosign" }
  | { kind: "named_collection"; name: string };

export type CurSource =
  /** A local file. chDB resolves a relative path against the process's working directory, so the path is made absolute. */
  | { kind: "file"; path: string }
  /** `https://<bucket>.s3.<region>.amazonaws.com/<key>` */
  | { kind: "s3"; url: string; auth?: S3Auth };

export interface CurFormat {
  format: "Parquet" | "CSVWithNames";
  compression: "gzip" | "none";
}

export function fileSource(path: string): CurSource {
  return { kind: "file", path: isAbsolute(path) ? path : resolve(path) };
}

export function sourceName(source: CurSource): string {
  return source.kind === "file" ? source.path : source.url;
}

/** The format of a report from its name: `.parquet`, `.csv.gz` (legacy CUR's default), `.csv`. */
export function curFormatOf(name: string): CurFormat | null {
  const lower = name.toLowerCase().replace(/[?#].*$/, "");
  if (lower.endsWith(".parquet") || lower.endsWith(".snappy.parquet"))
    return { format: "Parquet", compression: "none" };
  if (lower.endsWith(".csv.gz") || lower.endsWith(".csv.gzip"))
    return { format: "CSVWithNames", compression: "gzip" };
  if (lower.endsWith(".csv")) return { format: "CSVWithNames", compression: "none" };
  return null;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The table function reading `source`: `file(path, format[, structure, compression])` or
 * `s3(url[, NOSIGN], format[, structure, compression])` or `s3(collection, url = ..., format = ...)`.
 */
export function tableFunction(
  source: CurSource,
  format: string,
  structure?: string,
  compression?: string,
): string {
  const tail: string[] = [];
  if (structure !== undefined) tail.push(lit(structure));
  if (structure !== undefined && compression !== undefined) tail.push(lit(compression));
  if (source.kind === "file") return `file(${[lit(source.path), lit(format), ...tail].join(", ")})`;
  const auth = source.auth ?? { kind: "environment" };
  if (auth.kind === "named_collection") {
    if (!IDENTIFIER.test(auth.name))
      throw new Error(`S3 named collection "${auth.name}" is not a valid identifier`);
    const opts = [`url = ${lit(source.url)}`, `format = ${lit(format)}`];
    if (structure !== undefined) opts.push(`structure = ${lit(structure)}`);
    if (compression !== undefined) opts.push(`compression_method = ${lit(compression)}`);
    return `s3(${[auth.name, ...opts].join(", ")})`;
  }
  const head = auth.kind === "nosign" ? [lit(source.url), "NOSIGN"] : [lit(source.url)];
  return `s3(${[...head, lit(format), ...tail].join(", ")})`;
}
