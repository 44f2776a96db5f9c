// The deadline helpers and error messages are the kernel's, shared by both systems.
export { errorMessage, TimeoutError, withTimeout } from "@shared/kernel";
