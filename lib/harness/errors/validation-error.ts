import { genericHarnessError } from "./harness-error";

/** Input that breaks a rule: bad field, contract violation, size limit, hostile path. Code `validation:<surface>` (default surface `input`). */
export class HarnessValidationError extends genericHarnessError("validation", "input") {}
