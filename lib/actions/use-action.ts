"use client";

import { useRouter } from "next/navigation";
import { useCallback, useState, useTransition } from "react";
import type { ActionError, ActionResult } from "./result";

export interface RunOptions<T> {
  /** Runs after a successful result, before the refresh (navigate, reset a form, keep data). */
  onSuccess?: (data: T) => void;
  /** Whether to refresh the page's server data afterwards (default: yes, on success). */
  refresh?: boolean | ((data: T) => boolean);
}

/**
 * What a settled result does: a failure is shown (nothing else runs); a success clears it, runs
 * `onSuccess`, then refreshes the page's server data unless `refresh` says not to.
 */
export function settleResult<T>(
  result: ActionResult<T>,
  options: RunOptions<T>,
  effects: { show: (failure: ActionError | null) => void; refresh: () => void },
): void {
  if (!result.ok) {
    effects.show(result.error);
    return;
  }
  effects.show(null);
  options.onSuccess?.(result.data);
  const refresh =
    typeof options.refresh === "function"
      ? options.refresh(result.data)
      : (options.refresh ?? true);
  if (refresh) effects.refresh();
}

/**
 * The client side of every server action: `pending` while it runs, the last failure's message
 * (and messages per field), and a refresh of the page's server data after a success. A thrown
 * error (403, network) goes to the nearest error boundary, as it would without the hook.
 */
export function useAction() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [failure, setFailure] = useState<ActionError | null>(null);

  const run = useCallback(
    <T>(call: () => Promise<ActionResult<T>>, options: RunOptions<T> = {}) =>
      startTransition(async () => {
        settleResult(await call(), options, { show: setFailure, refresh: () => router.refresh() });
      }),
    [router],
  );

  return {
    pending,
    /** The last failure's message, or null. */
    error: failure?.message ?? null,
    fieldErrors: failure?.fieldErrors ?? {},
    /** Shows a message of the component's own (a check before calling), or clears it. */
    setError: (message: string | null) =>
      setFailure(message === null ? null : { code: "client", message }),
    run,
    router,
  };
}
