// The simulated cloud the demo stack and the tests run the collectors against: seeded, so the same
// seed gives the same accounts, regions, resources and tags on every run.
export * from "./simulated-cloud.ts";
export * from "./simulated-tags.ts";
