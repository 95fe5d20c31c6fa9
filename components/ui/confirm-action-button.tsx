"use client";

import type { ComponentProps } from "react";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormMessage } from "@/components/ui/form-message";
import type { ActionResult } from "@/lib/actions/result";
import { useAction } from "@/lib/actions/use-action";

/**
 * A small button that asks `confirm` first, then runs the server action `call` (and `onSuccess`
 * after a success): disabled while it runs, its failure shown below it. Given `action` (the
 * caller's own `useAction()`), it runs through that instead: the caller's other controls and this
 * one wait for each other, and the caller shows the failure where it shows its own.
 */
export function ConfirmActionButton<T>({
  call,
  onSuccess,
  action,
  size = "sm",
  ...props
}: Omit<ComponentProps<typeof ConfirmButton>, "onConfirm" | "disabled"> & {
  call: () => Promise<ActionResult<T>>;
  onSuccess?: (data: T) => void;
  action?: ReturnType<typeof useAction>;
}) {
  const own = useAction();
  const { pending, error, run } = action ?? own;
  return (
    <>
      <ConfirmButton
        size={size}
        {...props}
        disabled={pending}
        onConfirm={() => run(call, { onSuccess })}
      />
      {action ? null : <FormMessage message={error} />}
    </>
  );
}
