// Walks every command of `relevance` (the list the router itself holds, so a new command is walked
// without editing this file): `--help` is a page with flags and an example, and a wrong flag is one
// line on stderr that names `--help`, with the usage exit code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Io } from "./io.ts";
import { commandNames, runRelevance } from "./relevance.ts";

interface Captured {
  code: number;
  out: string;
  err: string;
}

/** Runs the router in process; the help and usage paths touch no file, so reading one is a bug. */
async function run(argv: string[]): Promise<Captured> {
  let out = "";
  let err = "";
  const io: Io = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    readText: async (path) => {
      throw new Error(`unexpected read of ${path}`);
    },
    writeTextAtomic: async (path) => {
      throw new Error(`unexpected write of ${path}`);
    },
  };
  const code = await runRelevance(argv, io);
  return { code, out, err };
}

const names = commandNames();

describe("relevance --help", () => {
  it("has every command documented in docs/cli.md, and the other way round", () => {
    const doc = readFileSync(new URL("../../../docs/cli.md", import.meta.url), "utf8");
    // Headings name one command or a group ("config get | set | disable").
    const documented = [...doc.matchAll(/^## `relevance ([^`]+)`/gm)].flatMap((m) => {
      const [first = "", ...more] = (m[1] as string).split(" | ");
      const group = first.split(" ").slice(0, -1).join(" ");
      return [first, ...more.map((sub) => `${group} ${sub}`)];
    });
    expect([...documented].sort()).toEqual([...names].sort());
  });

  it("lists every command with its summary, exit 0, nothing on stderr", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    for (const name of names) expect(r.out).toContain(`  ${name} `);
    expect(r.out).toMatch(/Examples:\n {2}relevance /);
  });

  it("prints the overview on stderr with exit 2 when no command is given", async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain("Usage: relevance <command>");
  });

  it.each(names)("%s --help: summary, usage, flags and a runnable example, exit 0", async (name) => {
    for (const flag of ["--help", "-h"]) {
      const r = await run([...name.split(" "), flag]);
      expect(r.code).toBe(0);
      expect(r.err).toBe("");
      expect(r.out.split("\n")[0]).toMatch(new RegExp(`^relevance ${name}: \\S`));
      expect(r.out).toContain(`Usage: relevance ${name}`);
      expect(r.out).toMatch(/\nFlags:\n {2}--/);
      // An example is a whole command line of this very command, not a placeholder.
      const examples = r.out.split("Examples:\n")[1]?.split("\n\n")[0]?.split("\n") ?? [];
      expect(examples.length).toBeGreaterThan(0);
      for (const e of examples) expect(e).toMatch(new RegExp(`^ {2}(.*\\| )?relevance ${name} --`));
    }
  });

  it.each(names)("%s --no-such-flag: one line naming --help, exit 2", async (name) => {
    const r = await run([...name.split(" "), "--no-such-flag"]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    const lines = r.err.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^relevance ${name}: .*--no-such-flag.*relevance ${name} --help`));
  });

  it("an unknown command is one line naming --help, without echoing flag values", async () => {
    const r = await run(["model", "train", "--api-key", "rk_secret"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('relevance: unknown command "model train" (see relevance --help)\n');
  });
});
