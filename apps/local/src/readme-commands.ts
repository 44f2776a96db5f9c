/**
 * The shell commands of a Markdown file (README.md), as a reader would paste them, so a test can run
 * each one. Pure: text in, commands out; running them is readme-runs.test.ts's business.
 *
 * A command is what one Enter runs in a shell: one line, or several joined by a trailing `\` or by
 * an open quote. Comment lines (`# …`, e.g. sample output) and trailing comments are not commands.
 * Only fences tagged sh, bash, shell or console hold commands; every fence must be tagged, so a
 * command cannot hide in an untagged block.
 */

export const SHELL_LANGUAGES: readonly string[] = ["sh", "bash", "shell", "console"];

export interface FencedBlock {
  /** The info string's first word ("" when untagged). */
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
}

export interface ReadmeCommand {
  /** The command as written (continuation lines kept), without comments: what is pasted and run. */
  text: string;
  /** One line, runs of blanks and line continuations as one space: what an exclusion names. */
  normalized: string;
  /** 1-based line of the command's first line in the file. */
  line: number;
}

/** Every ``` fenced block, in order. An unclosed fence runs to the end of the file (as CommonMark). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,})\s*([^`\s]*)/.exec(lines[i] as string);
    if (open === null) continue;
    const fence = open[1] as string;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] as string).trimStart().startsWith(fence))
      body.push(lines[j++] as string);
    blocks.push({ lang: (open[2] as string).toLowerCase(), body: body.join("\n"), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** Splits a shell block into commands: quote-aware, `\`-newline joins lines, comments dropped. */
export function shellCommands(body: string, firstLine = 1): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let text = "";
  let startLine = firstLine;
  let line = firstLine;
  let quote: "'" | '"' | null = null;
  const finish = () => {
    const trimmed = text.trim();
    if (trimmed !== "")
      commands.push({ text: trimmed, normalized: normalizeCommand(trimmed), line: startLine });
    text = "";
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (quote === null && text.trim() === "" && c !== "\n" && /\s/.test(c)) continue;
    if (text.trim() === "") startLine = line;
    if (c === "\n") {
      line++;
      if (quote === null) {
        finish();
        continue;
      }
    }
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === "\\") {
      // Outside single quotes a backslash takes the next character along (a newline: the line goes on).
      const next = body[i + 1];
      if (next !== undefined) {
        text += c + next;
        if (next === "\n") line++;
        i++;
        continue;
      }
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (text === "" || /\s$/.test(text))) {
      // A comment runs to the end of the line; the newline itself still ends the command.
      while (i + 1 < body.length && body[i + 1] !== "\n") i++;
      continue;
    }
    text += c;
  }
  finish();
  return commands;
}

/** One line: `\`-newline and every run of blanks become one space. */
export function normalizeCommand(text: string): string {
  return text
    .replace(/\\\n/g, " ")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/** Every command of every shell block, in the order a reader meets them. */
export function readmeCommands(markdown: string): ReadmeCommand[] {
  return fencedBlocks(markdown)
    .filter((b) => SHELL_LANGUAGES.includes(b.lang))
    .flatMap((b) => shellCommands(b.body, b.line + 1));
}

/** Lines of fences without a language: each must say whether it is commands (sh) or not (text, json). */
export function untaggedFences(markdown: string): number[] {
  return fencedBlocks(markdown)
    .filter((b) => b.lang === "")
    .map((b) => b.line);
}

/** Relative link targets (`](path)`, without `#anchor`): files the repository must hold. */
export function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
  return [
    ...new Set(
      targets
        .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#"))
        .map((t) => t.split("#")[0] as string),
    ),
  ];
}

/** What a reader's own start differs in from the README's: the port, and the tokens npm start printed. */
export interface ReaderFacts {
  port: number;
  adminToken: string;
  monitorToken: string;
}

/** Placeholders the README asks the reader to replace, and the README's default port. */
export const ADMIN_TOKEN_PLACEHOLDER = "paste-the-admin-token-from-the-banner";
export const MONITOR_TOKEN_PLACEHOLDER = "paste-the-monitor-token-from-the-banner";
export const README_PORT = 8787;

/**
 * The command as this reader pastes it: their tokens in place of the placeholders, their port in
 * place of 8787 in URLs. Nothing else changes, so a command that only works with edits fails.
 */
export function asReaderRunsIt(command: string, facts: ReaderFacts): string {
  return command
    .replaceAll(ADMIN_TOKEN_PLACEHOLDER, facts.adminToken)
    .replaceAll(MONITOR_TOKEN_PLACEHOLDER, facts.monitorToken)
    .replace(new RegExp(`\\b(127\\.0\\.0\\.1|localhost):${README_PORT}\\b`, "g"), `$1:${facts.port}`);
}

/** The anchors GitHub gives headings: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchors(markdown: string): string[] {
  const outsideFences = fencedBlocks(markdown).reduce((text, b) => text.replace(b.body, ""), markdown);
  return [...outsideFences.matchAll(/^#{1,6} +(.+)$/gm)].map((m) =>
    (m[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-"),
  );
}

/** In-page links (`](#anchor)`). */
export function anchorLinks(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1] as string))];
}
