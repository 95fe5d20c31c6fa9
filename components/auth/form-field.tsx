import type { ReactNode } from "react";
import { FormMessage } from "@/components/ui/form-message";
import { Label } from "@/components/ui/label";

/** One labelled input of the sign-in and sign-up forms, with its field error below it. */
export function FormField(props: {
  id: string;
  label: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={props.id}>{props.label}</Label>
      {props.children}
      <FormMessage message={props.error} />
    </div>
  );
}
