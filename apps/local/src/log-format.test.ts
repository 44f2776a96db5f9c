import { describe, expect, it } from "vitest";
import { chooseLogOutput } from "./log-format.ts";

describe("chooseLogOutput", () => {
  it("prints for a person on a terminal, in colour", () => {
    expect(chooseLogOutput({}, true)).toEqual({ ok: true, output: { format: "human", color: true } });
  });

  it("keeps the JSON lines when stdout is a pipe or a file", () => {
    expect(chooseLogOutput({}, false)).toEqual({ ok: true, output: { format: "json", color: false } });
  });

  it("keeps the JSON lines on a terminal when LOG_FORMAT=json", () => {
    expect(chooseLogOutput({ LOG_FORMAT: "json" }, true)).toEqual({
      ok: true,
      output: { format: "json", color: false },
    });
  });

  it("gives the human format to a pipe on request, without colour codes", () => {
    expect(chooseLogOutput({ LOG_FORMAT: "human" }, false)).toEqual({
      ok: true,
      output: { format: "human", color: false },
    });
  });

  it("drops colour when NO_COLOR is set to anything but the empty string", () => {
    expect(chooseLogOutput({ NO_COLOR: "1" }, true)).toEqual({
      ok: true,
      output: { format: "human", color: false },
    });
    expect(chooseLogOutput({ NO_COLOR: "" }, true)).toEqual({
      ok: true,
      output: { format: "human", color: true },
    });
  });

  it("treats an empty LOG_FORMAT as unset and rejects unknown formats with the variable's name", () => {
    expect(chooseLogOutput({ LOG_FORMAT: " " }, false)).toEqual({
      ok: true,
      output: { format: "json", color: false },
    });
    expect(chooseLogOutput({ LOG_FORMAT: "pretty" }, true)).toEqual({
      ok: false,
      error: 'LOG_FORMAT must be json or human, got "pretty"',
    });
  });
});
