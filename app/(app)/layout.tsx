import { KeyRound, Download, LogOut, type LucideIcon } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { signOutAction } from "@/app/(auth)/actions";
import { SearchBox } from "@/components/search/search-box";
import { HeaderMenu } from "@/components/shell/header-menu";
import { NavLinks } from "@/components/shell/nav-links";
import { ThemeToggle } from "@/components/theme-toggle";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { WorkspaceSwitcher } from "@/components/shell/workspace-switcher";
import { getUserProfile } from "@/lib/accounts/queries";
import { listOwnWorkspaces, requireActor } from "@/lib/auth";
import { openSuggestionCount } from "@/lib/review/process-review";

export default async function AppLayout({ children }: { children: ReactNode }) {
  const actor = await requireActor();
  const [user, workspaces, toReview] = await Promise.all([
    getUserProfile(actor.userId),
    listOwnWorkspaces(actor),
    openSuggestionCount(actor),
  ]);
  const workspace = workspaces.find((item) => item.current);
  const links = [
    { href: "/chat", label: "Chat" },
    { href: "/memory", label: "Memory" },
    { href: "/harness", label: "Harness" },
    { href: "/refinements", label: "Refinements" },
    { href: "/files", label: "Files" },
    // Editors see how many suggestions wait; members find their own suggestions there too.
    { href: "/review", label: "Review", ...(toReview > 0 ? { count: toReview } : {}) },
    ...(actor.role === "admin" ? [{ href: "/admin/members", label: "Admin" }] : []),
  ];
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        data-testid="skip-link"
        className="bg-background focus-visible:ring-ring sr-only z-50 rounded-md px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus-visible:ring-2"
      >
        Skip to main content
      </a>
      <header className="border-border relative flex items-center gap-4 border-b px-4 py-3 md:px-6 2xl:gap-6">
        <Link href="/chat" className="font-semibold tracking-tight">
          Cairn
        </Link>
        <SearchBox />
        <HeaderMenu waiting={toReview}>
          <NavLinks links={links} />
          <div className="flex flex-wrap items-center gap-3 text-sm md:flex-nowrap">
            <span
              className="text-muted-foreground min-w-0 truncate md:max-w-36 2xl:max-w-xs"
              title={`${user?.name ?? ""} · ${workspace?.name ?? ""}`}
              data-testid="current-user"
            >
              {user?.name} · {workspace?.name}
            </span>
            <WorkspaceSwitcher workspaces={workspaces} />
            <Badge data-testid="current-role">{actor.role}</Badge>
            <HeaderIconLink
              href="/settings/tokens"
              label="Access tokens"
              title="Access tokens (MCP)"
              testId="nav-tokens"
              icon={KeyRound}
            />
            <HeaderIconLink
              href="/settings/data"
              label="Your data"
              title="Your data (download)"
              testId="nav-your-data"
              icon={Download}
            />
            <ThemeToggle />
            <form action={signOutAction}>
              <Button
                variant="ghost"
                size="icon"
                type="submit"
                aria-label="Sign out"
                data-testid="sign-out"
              >
                <LogOut className="size-4" />
              </Button>
            </form>
          </div>
        </HeaderMenu>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl p-4 outline-none md:p-6">
        {children}
      </main>
    </div>
  );
}

/** A header link shown as an icon: `label` for screen readers, `title` on hover. */
function HeaderIconLink(props: {
  href: string;
  label: string;
  title: string;
  testId: string;
  icon: LucideIcon;
}) {
  const Icon = props.icon;
  return (
    <Link
      href={props.href}
      aria-label={props.label}
      title={props.title}
      data-testid={props.testId}
      className="hover:bg-muted inline-flex size-9 items-center justify-center rounded-md"
    >
      <Icon className="size-4" />
    </Link>
  );
}
