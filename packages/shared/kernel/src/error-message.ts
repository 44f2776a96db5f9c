/**
 * One line for a log or an error body from anything thrown: an Error's message, with its cause's
 * message after it when there is one (a fetch's "fetch failed" says nothing without its cause).
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
