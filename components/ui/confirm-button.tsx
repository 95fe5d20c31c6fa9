"use client";

import type { ComponentProps } from "react";
import { Button } from "@/components/ui/button";

/** A button that asks `confirm` first (`window.confirm`) and runs `onConfirm` only on yes. */
export function ConfirmButton({
  confirm,
  onConfirm,
  ...props
}: Omit<ComponentProps<typeof Button>, "onClick"> & { confirm: string; onConfirm: () => void }) {
  return (
    <Button
      {...props}
      onClick={() => {
        if (window.confirm(confirm)) onConfirm();
      }}
    />
  );
}
