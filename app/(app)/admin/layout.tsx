import type { ReactNode } from "react";
import { SubNav } from "@/components/shell/sub-nav";
import { requireRole } from "@/lib/auth";

/** Admin pages: 403 for anyone but admins, enforced here and again in every page and action. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireRole("admin");
  return (
    <div className="space-y-6">
      <SubNav
        label="Admin"
        links={[
          { href: "/admin/members", label: "Members" },
          { href: "/admin/settings", label: "Settings", testId: "admin-settings-link" },
          { href: "/admin/audit", label: "Audit log", testId: "admin-audit-link" },
        ]}
      />
      {children}
    </div>
  );
}
