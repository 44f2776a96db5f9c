/** Error text of a failed run (`error` of svc.collector_runs): `Name: message`, at most MAX_ERROR_CHARS. */
export const MAX_ERROR_CHARS = 4096;

export function errorText(err: unknown): string {
  let text: string;
  if (err instanceof Error) {
    text = err.message.startsWith(`${err.name}:`) ? err.message : `${err.name}: ${err.message}`;
  } else text = String(err);
  return text.length > MAX_ERROR_CHARS ? `…${text.slice(-(MAX_ERROR_CHARS - 1))}` : text;
}
