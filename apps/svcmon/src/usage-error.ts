import { USAGE_EXIT, UserError } from "@shared/kernel";

/** A mistake in svcmon's command line (`run` or `silence`): the kernel's UserError with the usage exit code. */
export class UsageError extends UserError {
  override name = "UsageError";
  constructor(message: string) {
    super(message, USAGE_EXIT);
  }
}
