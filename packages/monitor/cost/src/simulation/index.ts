// The simulated CUR reports the demo stack and the tests ingest, made from the simulated cloud.
export * from "./simulated-cur.ts";
