/**
 * Orders key names by Unicode code point, which is UTF-8 byte order: the order in which Workers KV,
 * the Cloudflare API and SQLite (BINARY collation) list keys. `Array.prototype.sort` without a
 * comparator orders by UTF-16 code unit instead, which differs for characters above U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done ? (cb.done ? 0 : -1) : 1;
    const pa = ca.value.codePointAt(0) ?? 0;
    const pb = cb.value.codePointAt(0) ?? 0;
    if (pa !== pb) return pa - pb;
  }
}
