// The search package's contract suites, one per port, run by every adapter's tests.
export { type ContractOptions, indexManagerContract } from "./index-manager.contract.ts";
export { type ContractIndex, type RetrievalSetup, retrievalContract } from "./retrieval.contract.ts";
