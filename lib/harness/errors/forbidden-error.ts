import { genericHarnessError } from "./harness-error";

/** The actor may not do this (e.g. a member writing a global entry, a write to a read-only dir). Code `forbidden:<surface>` (default surface `harness`). */
export class HarnessForbiddenError extends genericHarnessError("forbidden", "harness") {}
