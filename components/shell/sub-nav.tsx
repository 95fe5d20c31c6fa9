"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

/** A section's own navigation (such as Admin → Members / Settings), with the current page marked. */
export function SubNav({
  label,
  links,
}: {
  label: string;
  links: { href: string; label: string; testId?: string }[];
}) {
  const pathname = usePathname();
  return (
    <nav className="border-border flex gap-1 border-b text-sm" aria-label={label}>
      {links.map((link) => {
        const current = pathname === link.href || pathname.startsWith(`${link.href}/`);
        return (
          <Link
            key={link.href}
            href={link.href}
            data-testid={link.testId}
            aria-current={current ? "page" : undefined}
            className={cn(
              "-mb-px border-b-2 px-3 py-2",
              current
                ? "border-primary font-medium"
                : "text-muted-foreground hover:text-foreground border-transparent",
            )}
          >
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
