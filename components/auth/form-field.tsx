import type { ComponentProps } from "react";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

/**
 * One labelled input of the sign-in and sign-up forms, submitted under its `id` as its name, with
 * its field error below it.
 */
export function FormField({
  id,
  label,
  error,
  ...inputProps
}: Omit<ComponentProps<typeof Input>, "id" | "name"> & {
  id: string;
  label: string;
  error: string | undefined;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} name={id} {...inputProps} />
      <FormMessage message={error} />
    </div>
  );
}
