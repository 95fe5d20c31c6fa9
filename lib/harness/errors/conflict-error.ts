import { genericHarnessError } from "./harness-error";

/** Optimistic concurrency: the caller's expected version/cursor is stale. Nothing was changed. Code `conflict:<surface>` (default surface `harness`). */
export class HarnessConflictError extends genericHarnessError("conflict", "harness") {}
