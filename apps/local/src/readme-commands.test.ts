import { describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN_PLACEHOLDER,
  anchorLinks,
  asReaderRunsIt,
  fencedBlocks,
  headingAnchors,
  MONITOR_TOKEN_PLACEHOLDER,
  normalizeCommand,
  readmeCommands,
  relativeLinks,
  shellCommands,
  untaggedFences,
} from "./readme-commands.ts";

const md = [
  "# Title", //                       1
  "", //                              2
  "```sh", //                         3
  "npm install", //                   4
  "npm start     # the stack", //     5
  "```", //                           6
  "", //                              7
  "```json", //                       8
  '{"a": 1}', //                      9
  "```", //                          10
  "```", //                          11
  "echo hidden", //                  12
  "```", //                          13
].join("\n");

describe("fencedBlocks", () => {
  it("finds each block with its language and the line of its fence", () => {
    expect(fencedBlocks(md)).toEqual([
      { lang: "sh", body: "npm install\nnpm start     # the stack", line: 3 },
      { lang: "json", body: '{"a": 1}', line: 8 },
      { lang: "", body: "echo hidden", line: 11 },
    ]);
  });

  it("reports untagged fences, where a command could hide", () => {
    expect(untaggedFences(md)).toEqual([11]);
  });
});

describe("shellCommands", () => {
  it("splits lines, drops comment lines and trailing comments, keeps the line numbers", () => {
    const body = "# sample output\ncurl -s x  # health\n\n  echo 'a # not a comment'\n# {\"hits\": []}";
    expect(shellCommands(body, 10)).toEqual([
      { text: "curl -s x", normalized: "curl -s x", line: 11 },
      { text: "echo 'a # not a comment'", normalized: "echo 'a # not a comment'", line: 13 },
    ]);
  });

  it("joins lines continued with a backslash, and lines inside an open quote", () => {
    const body = 'curl -s -X POST u \\\n  -d \'{"q": 1,\n  "r": true}\'\nnext';
    const [first, second] = shellCommands(body);
    expect(first?.text).toBe('curl -s -X POST u \\\n  -d \'{"q": 1,\n  "r": true}\'');
    expect(first?.normalized).toBe('curl -s -X POST u -d \'{"q": 1,\n "r": true}\'');
    expect(second).toEqual({ text: "next", normalized: "next", line: 4 });
  });

  it("keeps escaped quotes and a # inside a word", () => {
    expect(shellCommands('echo "a \\" b" x#y').map((c) => c.text)).toEqual(['echo "a \\" b" x#y']);
  });
});

describe("readmeCommands", () => {
  it("takes commands from shell blocks only", () => {
    expect(readmeCommands(md).map((c) => [c.normalized, c.line])).toEqual([
      ["npm install", 4],
      ["npm start", 5],
    ]);
  });
});

describe("normalizeCommand", () => {
  it("makes one line of a continued command", () => {
    expect(normalizeCommand("a  b \\\n   c")).toBe("a b c");
  });
});

describe("relativeLinks", () => {
  it("lists the files a README links to, not URLs or anchors", () => {
    const text = "[a](docs/a.md) [b](docs/b.md#x) [c](https://x.org) [d](#try-it) [e](docs/a.md)";
    expect(relativeLinks(text)).toEqual(["docs/a.md", "docs/b.md"]);
  });
});

describe("asReaderRunsIt", () => {
  const facts = { port: 41234, adminToken: "adm-123", monitorToken: "mon-456" };
  it("pastes the reader's tokens and port, and changes nothing else", () => {
    expect(asReaderRunsIt(`export ADMIN_TOKEN=${ADMIN_TOKEN_PLACEHOLDER}`, facts)).toBe(
      "export ADMIN_TOKEN=adm-123",
    );
    expect(asReaderRunsIt(`export MONITOR_TOKEN=${MONITOR_TOKEN_PLACEHOLDER}`, facts)).toBe(
      "export MONITOR_TOKEN=mon-456",
    );
    expect(asReaderRunsIt("curl -s http://127.0.0.1:8787/healthz localhost:8787/x", facts)).toBe(
      "curl -s http://127.0.0.1:41234/healthz localhost:41234/x",
    );
    expect(asReaderRunsIt("echo 18787 127.0.0.1:87870", facts)).toBe("echo 18787 127.0.0.1:87870");
  });
});

describe("headingAnchors and anchorLinks", () => {
  it("names headings as GitHub does, ignoring # lines inside fences", () => {
    const text =
      "## Try it\n### Open `/system`\n```sh\n# not a heading\n```\n## What npm start runs\n[x](#try-it) [y](#open-system)";
    expect(headingAnchors(text)).toEqual(["try-it", "open-system", "what-npm-start-runs"]);
    expect(anchorLinks(text)).toEqual(["try-it", "open-system"]);
  });
});
