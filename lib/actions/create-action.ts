import { forbidden, unstable_rethrow } from "next/navigation";
import type { z } from "zod";
import { hasRole, type Actor, type Role } from "@/lib/harness";
import { toActionError } from "./to-action-error";
import type { ActionResult } from "./result";

export interface ActionOptions<S extends z.ZodType> {
  /** The input's schema; what it refuses comes back as a `validation:input` error. */
  input: S;
  /** The least role the action needs (default: any member); below it the action answers 403. */
  role?: Role;
}

/** A server action: takes the schema's input, returns one {@link ActionResult}. */
export type Action<S extends z.ZodType, T> = (input: z.input<S>) => Promise<ActionResult<T>>;

/**
 * Builds the wrappers every server action goes through. The order is fixed: parse the input,
 * resolve the Actor (signed out: redirect to sign-in), check the role (403 below it), then run
 * the body, which checks ownership through the shared predicates and loaders and may refuse with
 * `fail(...)` or `forbidden()`. Errors map in one place (`toActionError`): a refusal the core
 * classes as forbidden becomes a 403 too, so a direct call gets the same answer as the UI;
 * Next's own control flow (`redirect`, `notFound`, `forbidden`) passes through untouched.
 *
 * `resolveActor` is a parameter so tests can run actions without a session.
 */
export function createActionClient(deps: { resolveActor: () => Promise<Actor> }) {
  async function settle<T>(body: () => Promise<T>): Promise<ActionResult<T>> {
    try {
      return { ok: true, data: await body() };
    } catch (error) {
      unstable_rethrow(error);
      const mapped = toActionError(error);
      if (mapped.status === 403) forbidden();
      return { ok: false, error: mapped.error };
    }
  }

  /** An action for a signed-in member of the current workspace. */
  function action<S extends z.ZodType, T>(
    options: ActionOptions<S>,
    body: (context: { input: z.output<S>; actor: Actor }) => Promise<T>,
  ): Action<S, T> {
    return async (raw) => {
      const parsed = options.input.safeParse(raw);
      // The Actor first: a signed-out caller is sent to sign in, whatever the input.
      const actor = await deps.resolveActor();
      if (options.role && !hasRole(actor.role, options.role)) forbidden();
      if (!parsed.success) return { ok: false, error: toActionError(parsed.error).error };
      return settle(() => body({ input: parsed.data, actor }));
    };
  }

  /** An action for people who are not signed in yet (sign-in, sign-up). */
  function publicAction<S extends z.ZodType, T>(
    options: { input: S },
    body: (context: { input: z.output<S> }) => Promise<T>,
  ): Action<S, T> {
    return async (raw) => {
      const parsed = options.input.safeParse(raw);
      if (!parsed.success) return { ok: false, error: toActionError(parsed.error).error };
      return settle(() => body({ input: parsed.data }));
    };
  }

  return { action, publicAction };
}

/**
 * An action in the shape `useActionState` and `<form action>` call: the previous result and the
 * form's fields, read as an object (a field given twice keeps its last value).
 */
export function formAction<S extends z.ZodType, T>(run: Action<S, T>) {
  return async (
    _previous: ActionResult<T> | undefined,
    formData: FormData,
  ): Promise<ActionResult<T>> => run(Object.fromEntries(formData) as z.input<S>);
}
