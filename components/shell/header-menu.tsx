"use client";

import { Menu, X } from "lucide-react";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { cn } from "@/lib/utils";

/**
 * The header's navigation and account controls: in a row on wide screens; behind a menu button
 * on a phone, where they open as a panel under the header. The controls are rendered once, so
 * they keep the same labels and test ids at every width.
 */
export function HeaderMenu({
  children,
  waiting = 0,
}: {
  children: ReactNode;
  /** Items waiting for the person (suggestions to review): a dot on the phone's menu button. */
  waiting?: number;
}) {
  const pathname = usePathname();
  // The page the panel was opened on: navigating elsewhere closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const setOpen = (next: boolean) => setOpenOn(next ? pathname : null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  // Escape closes the open panel and gives the focus back to the menu button.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpenOn(null);
      buttonRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="hover:bg-muted focus-visible:ring-ring relative ml-auto inline-flex size-11 items-center justify-center rounded-md focus-visible:ring-2 focus-visible:outline-none md:hidden"
        aria-label={
          open ? "Close menu" : waiting > 0 ? `Open menu (${waiting} to review)` : "Open menu"
        }
        aria-expanded={open}
        aria-controls="app-menu"
        data-testid="menu-button"
        onClick={() => setOpen(!open)}
      >
        {open ? <X className="size-5" /> : <Menu className="size-5" />}
        {waiting > 0 && !open ? (
          <span
            aria-hidden="true"
            className="bg-primary absolute top-2 right-2 size-2.5 rounded-full"
            data-testid="menu-waiting"
          />
        ) : null}
      </button>
      <div
        id="app-menu"
        data-testid="app-menu"
        className={cn(
          open ? "flex" : "hidden",
          "border-border bg-background absolute inset-x-0 top-full z-40 flex-col gap-4 border-b p-4 shadow-md",
          "md:static md:z-auto md:flex md:min-w-0 md:flex-1 md:flex-row md:items-center md:justify-between md:gap-4 md:border-0 md:bg-transparent md:p-0 md:shadow-none",
        )}
      >
        {children}
      </div>
    </>
  );
}
