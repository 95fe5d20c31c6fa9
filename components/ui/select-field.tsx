import type { ComponentProps, ReactNode } from "react";
import { Label } from "./label";

/**
 * A labelled native select of a settings form, one option per `{ value, label }`, tall enough to
 * tap on a phone. `onValueChange` gets the chosen option's value.
 */
export function SelectField<T extends string>({
  id,
  label,
  value,
  options,
  onValueChange,
  ...selectProps
}: Omit<ComponentProps<"select">, "id" | "value" | "onChange" | "children" | "className"> & {
  id: string;
  label: ReactNode;
  value: T;
  options: readonly { value: T; label: string }[];
  onValueChange: (value: T) => void;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <select
        id={id}
        {...selectProps}
        className="border-input bg-background h-11 w-full rounded-md border px-2 text-sm sm:h-9"
        value={value}
        onChange={(event) => onValueChange(event.target.value as T)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
