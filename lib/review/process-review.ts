import "server-only";
import { cairn } from "@/lib/cairn";
import type { Actor } from "@/lib/harness";
import { harnessStorageFor } from "@/lib/sql-storage";
import type { ReviewDeps } from "./review";
import {
  countOpenSuggestions,
  countPendingRefinements,
  listPendingRefinements,
  listSuggestions,
  type PendingRefinementView,
  type SuggestionView,
} from "./suggestion-store";

/** The process's review dependencies: its database, dirs and harness storage. */
export function reviewDeps(): ReviewDeps {
  const root = cairn();
  return {
    sql: root.sql,
    appDirs: root.persistentDirs.appDirs,
    harnessStorage: harnessStorageFor(),
  };
}

/** How many suggestions wait for `actor` to review: editors and admins only, else 0. */
export async function openSuggestionCount(actor: Actor): Promise<number> {
  if (actor.role === "member") return 0;
  const sql = cairn().sql;
  const [suggestions, refinements] = await Promise.all([
    countOpenSuggestions(sql, { workspaceId: actor.workspaceId }),
    countPendingRefinements(sql, { workspaceId: actor.workspaceId }),
  ]);
  return suggestions + refinements;
}

/**
 * What `/review` lists for `actor`: editors and admins see every suggestion of the workspace;
 * a member sees only their own (open and decided, with the reason of a rejection).
 */
export async function suggestionsFor(
  actor: Actor,
  status: "open" | "decided",
): Promise<SuggestionView[]> {
  return listSuggestions(cairn().sql, {
    workspaceId: actor.workspaceId,
    status,
    ...(actor.role === "member" ? { authorId: actor.userId } : {}),
    limit: 100,
  });
}

/** Global refinements waiting for approval (editors and admins; a member gets none). */
export async function pendingRefinementsFor(actor: Actor): Promise<PendingRefinementView[]> {
  if (actor.role === "member") return [];
  return listPendingRefinements(cairn().sql, { workspaceId: actor.workspaceId });
}
