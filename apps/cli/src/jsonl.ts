import { UserError } from "./io.ts";

/** Parses JSON lines (blank lines skipped); every failure names the file and line. */
export function readJsonLines<T>(
  text: string,
  path: string,
  parse: (value: unknown, where: string) => T,
): T[] {
  const out: T[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === "") continue;
    const where = `${path === "-" ? "stdin" : path} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UserError(`${where}: not valid JSON`);
    }
    out.push(parse(value, where));
  }
  return out;
}
