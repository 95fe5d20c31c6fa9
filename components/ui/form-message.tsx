import { cn } from "@/lib/utils";

/** A form-level error or notice. Not role="alert": Next's route announcer already uses that role. */
export function FormMessage({
  message,
  tone = "error",
}: {
  message?: string | null;
  tone?: "error" | "info";
}) {
  if (!message) return null;
  return (
    <p
      data-testid={tone === "error" ? "form-error" : "form-info"}
      aria-live="polite"
      className={cn("text-sm", tone === "error" ? "text-destructive" : "text-muted-foreground")}
    >
      {message}
    </p>
  );
}
