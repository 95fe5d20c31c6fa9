import type { ReactNode } from "react";

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div
      className="border-border rounded-lg border border-dashed p-10 text-center"
      data-testid="empty-state"
    >
      <h2 className="font-medium">{title}</h2>
      {children ? <div className="text-muted-foreground mt-2 text-sm">{children}</div> : null}
    </div>
  );
}
