import { describe, expect, it } from "vitest";
import { USAGE_EXIT, UserError } from "./user-error.ts";

describe("UserError", () => {
  it("carries the exit code a command line ends with: 1 by default, 2 for a usage mistake", () => {
    expect(new UserError("no such file").exitCode).toBe(1);
    expect(new UserError("--index is required", USAGE_EXIT).exitCode).toBe(2);
    expect(new UserError("x")).toBeInstanceOf(Error);
  });
});
