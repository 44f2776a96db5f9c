// Reading documents: attribute values (top level, or a dot path into nested objects) and the text
// the full-text index sees.

/** The value of `attribute`: a top-level key first, then a dot path (`author.name`) into objects. */
export function fieldValue(doc: Record<string, unknown>, attribute: string): unknown {
  // A plain read first (much cheaper than Object.hasOwn on the hot paths: facets, sort); a name
  // that an object inherits (`constructor`, `__proto__`, ...) is checked as an own property.
  const direct = doc[attribute];
  if (direct !== undefined && !(attribute in Object.prototype)) return direct;
  if (Object.hasOwn(doc, attribute)) return doc[attribute];
  if (!attribute.includes(".")) return undefined;
  let value: unknown = doc;
  for (const key of attribute.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * `fieldValue` for one attribute, for reading it from many documents: a name no object inherits is
 * read directly (one property load), anything else goes through `fieldValue`.
 */
export function fieldReader(attribute: string): (doc: Record<string, unknown>) => unknown {
  if (attribute in Object.prototype) return (doc) => fieldValue(doc, attribute);
  const dotted = attribute.includes(".");
  return (doc) => {
    const direct = doc[attribute];
    return direct !== undefined || !dotted ? direct : fieldValue(doc, attribute);
  };
}

/**
 * The searchable text of a value: strings as they are, numbers as written, arrays as their
 * string/number elements joined with a space; anything else (objects, booleans, null) has none.
 */
export function searchableText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const element of value) {
      if (typeof element === "string") parts.push(element);
      else if (typeof element === "number" && Number.isFinite(element)) parts.push(String(element));
    }
    return parts.length > 0 ? parts.join(" ") : undefined;
  }
  return undefined;
}

/**
 * The fields to index when the settings name no searchable attributes: every top-level field that
 * holds a string or an array with a string in some document, in the order first seen.
 */
export async function stringFields(
  docs: Iterable<Record<string, unknown>>,
  /** Called between documents: gives the event loop back during a long scan (slices.ts). */
  pause: () => Promise<void> = async () => {},
): Promise<string[]> {
  const seen = new Set<string>();
  for (const doc of docs) {
    await pause();
    for (const [key, value] of Object.entries(doc)) {
      if (seen.has(key) || key === "__proto__") continue;
      if (typeof value === "string" || (Array.isArray(value) && value.some((e) => typeof e === "string"))) {
        seen.add(key);
      }
    }
  }
  return [...seen];
}
