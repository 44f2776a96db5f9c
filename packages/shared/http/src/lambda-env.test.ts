import { describe, expect, it } from "vitest";
import { lambdaStageProblem, missingEnv } from "./lambda-env.ts";

describe("missingEnv", () => {
  it("names the required variables that are unset or blank, in the order asked", () => {
    expect(missingEnv({ A: "1", B: " ", D: "" }, ["D", "A", "B", "C"])).toEqual(["D", "B", "C"]);
    expect(missingEnv({ A: "1" }, ["A"])).toEqual([]);
  });
});

describe("lambdaStageProblem", () => {
  it("accepts the deployed environments and leaves an unset ENV to missingEnv", () => {
    for (const ENV of ["dev", "staging", "preprod", "prod"]) expect(lambdaStageProblem({ ENV })).toBeNull();
    expect(lambdaStageProblem({})).toBeNull();
  });

  it("names the deployed environments when ENV is another value", () => {
    expect(lambdaStageProblem({ ENV: "local" })).toBe(
      'ENV must be one of dev, staging, preprod, prod, got "local"',
    );
  });
});
