/** Literals and identifiers for SQL generated from data (file names, report columns, rule values). */

/** A ClickHouse string literal: backslash and single quote escaped. */
export function lit(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/** A quoted identifier: report columns such as `lineItem/UnblendedCost` or `resourceTags/user:team`. */
export function ident(name: string): string {
  return `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;
}

/** A list of string literals for IN (...). */
export function litList(values: readonly string[]): string {
  return values.map(lit).join(", ");
}
