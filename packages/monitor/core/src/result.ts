// Validation results are the kernel's: every validator of both systems returns the same shape.
export { at, type Issue, isPlainObject, type Result } from "@shared/kernel";
