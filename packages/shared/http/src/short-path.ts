export const MAX_PATH_CHARS = 200;

/**
 * A path as an answer names it: at most 200 characters, its start and its end kept (the end names
 * the offending key). A body's keys are the client's, and a megabyte-long key must not come back
 * twenty times in the details.
 */
export function shortPath(path: string): string {
  if (path.length <= MAX_PATH_CHARS) return path;
  const half = MAX_PATH_CHARS / 2;
  return `${path.slice(0, half)}…${path.slice(-half)}`;
}
