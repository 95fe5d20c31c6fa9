/**
 * A refusal an action's body throws on purpose ("That chat does not exist or is not yours."):
 * its code and message reach the person as they are. For anything a person may not do at all,
 * call `forbidden()` instead (HTTP 403).
 */
export class ActionFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ActionFailure";
  }
}

/** Throws an {@link ActionFailure}; for one-line refusals in an action's body. */
export function fail(code: string, message: string): never {
  throw new ActionFailure(code, message);
}
