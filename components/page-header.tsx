import Link from "next/link";
import type { ReactNode } from "react";

/**
 * A page's title and what the page is for (`children`), with a link back to the page above it
 * when there is one (`back`: "← Files").
 */
export function PageHeader({
  title,
  back,
  children,
}: {
  title: string;
  back?: { href: string; label: string };
  children: ReactNode;
}) {
  return (
    <div>
      {back ? (
        <Link href={back.href} className="text-muted-foreground text-sm underline">
          ← {back.label}
        </Link>
      ) : null}
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="text-muted-foreground text-sm">{children}</p>
    </div>
  );
}
