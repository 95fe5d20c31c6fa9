import type { ComponentProps, ReactNode } from "react";
import { Input } from "./input";
import { Label } from "./label";

/**
 * A labelled input with a hint below it. `error` (a field error from the server) takes the
 * hint's place and marks the input invalid; with `hintId` the hint has that id and describes
 * the input. `onValueChange` gets the input's new value.
 */
export function TextField({
  id,
  label,
  hint,
  hintId,
  error,
  onValueChange,
  ...inputProps
}: Omit<ComponentProps<typeof Input>, "id" | "onChange"> & {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  hintId?: string;
  error?: string | null;
  onValueChange: (value: string) => void;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        {...inputProps}
        onChange={(event) => onValueChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={hintId}
      />
      {hint === undefined ? null : (
        <p id={hintId} className="text-muted-foreground text-xs">
          {error ?? hint}
        </p>
      )}
    </div>
  );
}
