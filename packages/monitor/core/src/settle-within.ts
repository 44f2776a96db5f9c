// The deadline helpers are the kernel's, shared by both systems.
export { type Settled, settleWithin } from "@shared/kernel";
