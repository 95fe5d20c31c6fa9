/**
 * The one result every server action returns, safe to import from client components. `ok: false`
 * carries a code (`validation:input`, `not_found:chat`, `conflict:version`, `internal`…), a
 * message written for people, and, for input the schema refused, the messages per field.
 */
export interface ActionError {
  code: string;
  message: string;
  fieldErrors?: Record<string, string[]>;
}

export type ActionResult<T = void> = { ok: true; data: T } | { ok: false; error: ActionError };

/** The error of a failed result, or undefined (for forms that hold the last result as state). */
export function errorOf(result: ActionResult<unknown> | undefined | null): ActionError | undefined {
  return result && !result.ok ? result.error : undefined;
}
