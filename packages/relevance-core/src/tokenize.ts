// Feature set v1 tokens (spec §4): NFKC, lower case, split on every character that is not a
// Unicode letter or decimal digit. Training-data export and serving both call this function.

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const UNICODE_SEPARATORS = /[^\p{L}\p{Nd}]+/u;

export function tokenize(text: string): string[] {
  // NFKC leaves ASCII unchanged, so the common case skips the costly normalisation.
  const ascii = ASCII_ONLY.test(text);
  const lowered = (ascii ? text : text.normalize("NFKC")).toLowerCase();
  const parts = lowered.split(ascii ? ASCII_SEPARATORS : UNICODE_SEPARATORS);
  const tokens: string[] = [];
  for (const part of parts) if (part !== "") tokens.push(part);
  return tokens;
}

export function tokenSet(text: string): Set<string> {
  return new Set(tokenize(text));
}
