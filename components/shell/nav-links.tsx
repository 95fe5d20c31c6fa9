"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

export function NavLinks({ links }: { links: { href: string; label: string }[] }) {
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
        </Link>
      ))}
    </nav>
  );
}
