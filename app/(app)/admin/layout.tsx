import Link from "next/link";
import type { ReactNode } from "react";
import { requireRole } from "@/lib/auth";

/** Admin pages: 403 for anyone but admins, enforced here and again in every page and action. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireRole("admin");
  return (
    <div className="space-y-6">
      <nav className="flex gap-4 text-sm" aria-label="Admin">
        <Link className="underline-offset-4 hover:underline" href="/admin/members">
          Members
        </Link>
        <Link
          className="underline-offset-4 hover:underline"
          href="/admin/settings"
          data-testid="admin-settings-link"
        >
          Settings
        </Link>
      </nav>
      {children}
    </div>
  );
}
