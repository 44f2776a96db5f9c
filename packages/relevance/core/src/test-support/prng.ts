// mulberry32, for replayable test and benchmark data: the kernel's one seeded PRNG.
export { mulberry32 } from "@shared/kernel";
