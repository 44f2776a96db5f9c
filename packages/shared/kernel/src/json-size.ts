// Sizes of JSON values as `JSON.stringify` writes them, in UTF-8 bytes, without building the text:
// the limits on stored documents and settings are in bytes as stored, and serialising a 20 MiB
// upload once more only to measure it would double its memory.

/** Bytes of `JSON.stringify(s)` in UTF-8: the quotes, the escapes, and `s`'s own UTF-8 bytes. */
export function jsonStringBytes(s: string): number {
  let n = 2 + s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 1; // \" and \\
    } else if (c < 0x20) {
      // \b \t \n \f \r are two characters, the other controls are \u00XX.
      n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 1 : 5;
    } else if (c < 0x800)
      n += 1; // 0x80..0x7ff: two bytes
    else if (c >= 0xd800 && c <= 0xdfff) {
      const pair =
        c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
      if (pair) {
        n += 2; // 4 bytes for 2 code units
        i++;
      } else n += 5; // JSON.stringify writes a lone surrogate as \udXXX
    } else n += 2;
  }
  return n;
}

/** Bytes of `JSON.stringify(value)` in UTF-8 for a JSON value (as `JSON.parse` makes them). Iterative. */
export function jsonBytes(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") n += jsonStringBytes(v);
    else if (typeof v === "number") n += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === "boolean") n += v ? 4 : 5;
    else if (v === null || v === undefined) n += 4;
    else if (Array.isArray(v)) {
      n += 2 + Math.max(0, v.length - 1);
      for (const item of v) stack.push(item);
    } else if (typeof v === "object") {
      const keys = Object.keys(v);
      n += 2 + Math.max(0, keys.length - 1) + keys.length; // braces, commas, colons
      for (const key of keys) {
        n += jsonStringBytes(key);
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return n;
}
