import { genericHarnessError } from "./harness-error";

/** The thing asked for does not exist. Code `not_found:<surface>` (default surface `harness`). */
export class HarnessNotFoundError extends genericHarnessError("not_found", "harness") {}
