"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

export function NavLinks({ links }: { links: { href: string; label: string; count?: number }[] }) {
  const pathname = usePathname();
  return (
    <nav className="flex flex-col gap-1 md:flex-row md:items-center" aria-label="Main">
      {links.map((link) => (
        <Link
          key={link.href}
          href={link.href}
          data-testid={`nav-${link.label.toLowerCase()}`}
          className={cn(
            "hover:bg-muted rounded-md px-3 py-1.5 text-sm",
            pathname.startsWith(link.href) && "bg-muted font-medium",
          )}
        >
          {link.label}
          {link.count ? (
            <span
              className="bg-primary text-primary-foreground ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full px-1.5 text-xs font-medium"
              data-testid={`nav-${link.label.toLowerCase()}-count`}
              aria-label={`${link.count} waiting`}
            >
              {link.count}
            </span>
          ) : null}
        </Link>
      ))}
    </nav>
  );
}
